// Reductions: Sum, Mean, Max over everything (shape {}) or along one axis
// (negative axes count from the end; keepdim leaves a size-1 dimension).
// Sum and Max take any numeric dtype, Mean only floating ones; Max of nothing
// is an error (it has no identity), Mean of nothing is NaN, Sum of nothing 0.
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

enum class Kind { kSum, kMean, kMax };

// axis < 0 with all == true: reduce everything.
Tensor Reduce(const internal::OpDef& def, Kind kind, const Tensor& x, bool all, int axis,
              bool keepdim) {
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) {
    s = kind == Kind::kMean ? internal::CheckFloating(x, def.name)
                            : internal::CheckNumeric(x, def.name);
  }
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
  if (kind == Kind::kMax && extent == 0) {
    return Tensor::Error(absl::InvalidArgumentError(
        all ? base::Cat("Max: the tensor ", x.shape(),
                        " is empty; the maximum of nothing is undefined")
            : base::Cat("Max: axis ", axis, " of ", x.shape(),
                        " has size 0; the maximum of nothing is undefined")));
  }
  return internal::SubmitOpWithOutput(def, x.dtype(), TensorMeta{out, x.dtype(), x.device()}, {&x},
                                      {Scalar(kernel_axis)});
}

// uint8 sums in int64 (numpy sums it in a 64-bit integer): a Cast first.
bool SumsWidened(const Tensor& x) { return x.ok() && x.dtype() == DType::kUInt8; }

}  // namespace

Tensor Sum(const Tensor& x) {
  if (SumsWidened(x)) [[unlikely]]
    return Sum(Cast(x, DType::kInt64));
  return Reduce(EAGERVM_BUILTIN_OP(kSum), Kind::kSum, x, true, 0, false);
}
Tensor Sum(const Tensor& x, int axis, bool keepdim) {
  if (SumsWidened(x)) [[unlikely]]
    return Sum(Cast(x, DType::kInt64), axis, keepdim);
  return Reduce(EAGERVM_BUILTIN_OP(kSum), Kind::kSum, x, false, axis, keepdim);
}
Tensor Mean(const Tensor& x) {
  return Reduce(EAGERVM_BUILTIN_OP(kMean), Kind::kMean, x, true, 0, false);
}
Tensor Mean(const Tensor& x, int axis, bool keepdim) {
  return Reduce(EAGERVM_BUILTIN_OP(kMean), Kind::kMean, x, false, axis, keepdim);
}
Tensor Max(const Tensor& x) {
  return Reduce(EAGERVM_BUILTIN_OP(kMax), Kind::kMax, x, true, 0, false);
}
Tensor Max(const Tensor& x, int axis, bool keepdim) {
  return Reduce(EAGERVM_BUILTIN_OP(kMax), Kind::kMax, x, false, axis, keepdim);
}

}  // namespace eagervm::ops
