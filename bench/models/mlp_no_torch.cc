// MakeTorchTrainer when libtorch is not installed (scripts/install_peers.sh).
#include "models/mlp.h"

namespace eagervm::models {

absl::StatusOr<std::unique_ptr<MlpTrainer>> MakeTorchTrainer(const MlpConfig&, const Digits&) {
  return absl::UnimplementedError("built without libtorch (scripts/install_peers.sh installs it)");
}

}  // namespace eagervm::models
