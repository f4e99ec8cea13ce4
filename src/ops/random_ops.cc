// RandomNormal: N(0, 1) samples that depend only on (seed, element index), so
// a seed gives the same tensor on any stream, in any order of submission.
#include "base/str_cat.h"
#include "eagervm/tensor.h"
#include "ops/builtin.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm {

Tensor RandomNormal(Shape shape, DType dtype, Device device, uint64_t seed) {
  if (!shape.IsValid()) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("RandomNormal: invalid shape ", shape, ": ", shape.InvalidReason())));
  }
  if (!IsFloating(dtype)) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("RandomNormal: needs float32 or float64, got ", dtype, "; use Cast")));
  }
  // The seed's bits travel as an int64 scalar.
  return internal::SubmitOpWithOutput(EAGERVM_BUILTIN_OP(kRandomNormal), dtype,
                                      TensorMeta{shape, dtype, device}, {},
                                      {Scalar(static_cast<int64_t>(seed))});
}

}  // namespace eagervm
