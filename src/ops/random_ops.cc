// RandomNormal and RandomUniform: samples that depend only on (seed, element index), so
// a seed gives the same tensor on any stream, in any order of submission.
#include <cmath>

#include "base/str_cat.h"
#include "eagervm/ops.h"
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

namespace ops {

Tensor RandomUniform(Shape shape, DType dtype, Device device, uint64_t seed, double lo, double hi) {
  if (!shape.IsValid()) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("RandomUniform: invalid shape ", shape, ": ", shape.InvalidReason())));
  }
  if (!IsFloating(dtype)) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("RandomUniform: needs float32 or float64, got ", dtype, "; use Cast")));
  }
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi)) {
    return Tensor::Error(absl::InvalidArgumentError(base::Cat(
        "RandomUniform: needs finite lo < hi, got lo ", lo, " and hi ", hi, " for ", shape)));
  }
  Tensor out = internal::NewTensor(TensorMeta{shape, dtype, device});
  auto attrs = std::make_shared<const Attrs>(Attrs{{"lo", lo}, {"hi", hi}});
  const Tensor* outs[] = {&out};
  const Scalar scalars[] = {Scalar(static_cast<int64_t>(seed))};  // the seed's bits
  absl::Status s =
      internal::SubmitOp(EAGERVM_BUILTIN_OP(kRandomUniform), dtype, {}, absl::MakeConstSpan(outs),
                         absl::MakeConstSpan(scalars), &attrs);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return out;
}

}  // namespace ops
}  // namespace eagervm
