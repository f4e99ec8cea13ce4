// The built-in ops: their definitions (name, which inputs they mutate) and
// the calls that register their kernels. Built-ins infer shapes in their
// ops:: functions, so their InferFn is only used by ops::Call.
#include "ops/op_registry.h"

namespace eagervm::kernels {
void RegisterBasicCpuKernels(internal::OpRegistry& r);
}

namespace eagervm::internal {
namespace {

void Define(OpRegistry& r, const char* name, std::vector<int> mutated = {}) {
  OpOptions o;
  o.mutated_inputs = std::move(mutated);
  (void)r.RegisterOp(name, nullptr, std::move(o));
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& r) {
  Define(r, "Fill");
  Define(r, "FillInplace", {0});
  Define(r, "Copy");
  Define(r, "CopyInto", {0});
  Define(r, "Add");
  Define(r, "AddInplace", {0});
  Define(r, "MulScalarInplace", {0});
  kernels::RegisterBasicCpuKernels(r);
}

}  // namespace eagervm::internal
