// The built-in ops: their definitions (name, which inputs they mutate) and
// the calls that register their kernels. Built-ins infer shapes in their
// ops:: functions and register no InferFn, so ops::Call refuses them.
#include <string_view>

#include "ops/op_registry.h"

namespace eagervm::kernels {
void RegisterBasicCpuKernels(internal::OpRegistry& r);
void RegisterBinaryCpuKernels(internal::OpRegistry& r);
void RegisterUnaryCpuKernels(internal::OpRegistry& r);
void RegisterReduceCpuKernels(internal::OpRegistry& r);
void RegisterMatMulCpuKernels(internal::OpRegistry& r);
void RegisterCastCpuKernels(internal::OpRegistry& r);
void RegisterRandomCpuKernels(internal::OpRegistry& r);
}

#ifdef EAGERVM_WITH_CUDA
namespace eagervm::kernels::cuda_impl {
void RegisterCudaKernels(internal::OpRegistry& r);  // src/kernels/cuda/math_kernels.cc
}
#endif

namespace eagervm::internal {
namespace {

void Define(OpRegistry& r, const char* name, std::vector<int> mutated = {}) {
  OpOptions o;
  o.mutated_inputs = std::move(mutated);
  // Element-wise and reduction kernels are short for small operands; MatMul's
  // cost grows faster than its bytes, so it always goes to the stream's worker.
  o.small_runs_inline = std::string_view(name) != "MatMul";
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
  // The op library (docs/ops.md).
  for (const char* name : {"Sub", "Mul", "Div", "Maximum", "AddScalar", "SubScalar", "MulScalar",
                           "DivScalar", "Relu", "Neg", "Exp", "Log", "Sigmoid", "Tanh", "Sqrt",
                           "MatMul", "Transpose", "Sum", "Mean", "Max", "Cast", "RandomNormal"}) {
    Define(r, name);
  }
  kernels::RegisterBasicCpuKernels(r);
#ifdef EAGERVM_WITH_CUDA
  kernels::cuda_impl::RegisterCudaKernels(r);
#endif
  kernels::RegisterBinaryCpuKernels(r);
  kernels::RegisterUnaryCpuKernels(r);
  kernels::RegisterReduceCpuKernels(r);
  kernels::RegisterMatMulCpuKernels(r);
  kernels::RegisterCastCpuKernels(r);
  kernels::RegisterRandomCpuKernels(r);
}

}  // namespace eagervm::internal
