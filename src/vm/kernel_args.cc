// The shapes errors name for an op's inputs.
#include "vm/kernel_args.h"

#include <variant>

#include "base/view_attrs.h"

namespace eagervm::internal {

std::string InputShapeText(const KernelArgs& args, size_t i) {
  if (args.attrs != nullptr && i < 64) {
    auto it = args.attrs->find(StridedShapeAttr(static_cast<int>(i)));
    if (it != args.attrs->end()) {
      if (const auto* dims = std::get_if<std::vector<int64_t>>(&it->second)) {
        return Shape(absl::MakeConstSpan(*dims)).ToString();
      }
    }
  }
  return args.inputs[i].meta->shape.ToString();
}

}  // namespace eagervm::internal
