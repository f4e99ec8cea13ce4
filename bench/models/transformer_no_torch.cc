// MakeTorchLm when libtorch is not installed (scripts/install_peers.sh).
#include "models/transformer.h"

namespace eagervm::models {

absl::StatusOr<std::unique_ptr<LmTrainer>> MakeTorchLm(const LmConfig&, const Corpus&) {
  return absl::UnimplementedError("built without libtorch (scripts/install_peers.sh installs it)");
}

}  // namespace eagervm::models
