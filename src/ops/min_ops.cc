// Min over everything (shape {}) or along one axis (negative axes count from
// the end; keepdim leaves a size-1 dimension). Numeric dtypes; NaN propagates
// (numpy.min); the minimum of nothing is an error, as for Max.
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

Tensor MinReduce(const Tensor& x, bool all, int axis, bool keepdim) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kMin);
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) s = internal::CheckNumeric(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  Shape out;
  int64_t kernel_axis = -1;
  if (!all) {
    absl::StatusOr<int> a = internal::NormalizeAxis(axis, x.shape(), def.name);
    if (!a.ok()) return Tensor::Error(a.status());
    kernel_axis = *a;
    out = internal::ReducedShape(x.shape(), *a, keepdim);
  }
  const int64_t extent = all ? x.numel() : x.size(static_cast<int>(kernel_axis));
  if (extent == 0) {
    return Tensor::Error(absl::InvalidArgumentError(
        all ? base::Cat("Min: the tensor ", x.shape(),
                        " is empty; the minimum of nothing is undefined")
            : base::Cat("Min: axis ", axis, " of ", x.shape(),
                        " has size 0; the minimum of nothing is undefined")));
  }
  return internal::SubmitOpWithOutput(def, x.dtype(), TensorMeta{out, x.dtype(), x.device()}, {&x},
                                      {Scalar(kernel_axis)});
}

}  // namespace

Tensor Min(const Tensor& x) { return MinReduce(x, true, 0, false); }
Tensor Min(const Tensor& x, int axis, bool keepdim) { return MinReduce(x, false, axis, keepdim); }

}  // namespace eagervm::ops
