// Cast: converts between any two dtypes, always into a new tensor (also for
// the same dtype, so writing to the result never changes the input). The
// conversion rules (saturation, NaN, bool) are in kernels/cpu/cast_kernels.cc
// and docs/ops.md.
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {

Tensor Cast(const Tensor& x, DType dtype) {
  absl::Status s = internal::CheckTensor(x, "Cast", "x");
  if (!s.ok()) return Tensor::Error(std::move(s));
  return internal::SubmitOpWithOutput(EAGERVM_BUILTIN_OP(kCast), x.dtype(),
                                      TensorMeta{x.shape(), dtype, x.device()}, {&x});
}

}  // namespace eagervm::ops
