// Comparisons (Eq Ne Lt Le Gt Ge -> bool), Where, Minimum, Abs and Pow.
// Comparisons and Where take every dtype; Minimum and Abs every numeric one;
// Pow floating ones. Binary inputs of two dtypes are promoted (ops/promotion.h)
// and broadcast like numpy; Where broadcasts all three of its inputs.
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/promotion.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

// a and b of two dtypes: `op` of their promoted copies (numpy's table), or
// the strict refusal. Only on the path where one-dtype checks failed.
template <typename F>
Tensor Promoted(const internal::OpDef& def, const Tensor& a, const Tensor& b, F op,
                const Shape* with = nullptr) {
  Tensor pa = a, pb = b;
  absl::Status s = internal::PromoteOperands(&pa, &pb, def.name, with);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return op(pa, pb);
}

// Output bool, of the broadcast shape; the kernel is picked by the inputs' dtype.
Tensor Compare(const internal::OpDef& def, const Tensor& a, const Tensor& b) {
  absl::StatusOr<Shape> shape = internal::CheckBroadcastOperands(a, b, def.name, /*numeric=*/false);
  if (!shape.ok()) {
    if (internal::DTypesDiffer(a, b))
      return Promoted(def, a, b,
                      [&](const Tensor& pa, const Tensor& pb) { return Compare(def, pa, pb); });
    return Tensor::Error(shape.status());
  }
  return internal::SubmitOpWithOutput(def, a.dtype(), TensorMeta{*shape, DType::kBool, a.device()},
                                      {&a, &b});
}

}  // namespace

Tensor Eq(const Tensor& a, const Tensor& b) { return Compare(EAGERVM_BUILTIN_OP(kEq), a, b); }
Tensor Ne(const Tensor& a, const Tensor& b) { return Compare(EAGERVM_BUILTIN_OP(kNe), a, b); }
Tensor Lt(const Tensor& a, const Tensor& b) { return Compare(EAGERVM_BUILTIN_OP(kLt), a, b); }
Tensor Le(const Tensor& a, const Tensor& b) { return Compare(EAGERVM_BUILTIN_OP(kLe), a, b); }
Tensor Gt(const Tensor& a, const Tensor& b) { return Compare(EAGERVM_BUILTIN_OP(kGt), a, b); }
Tensor Ge(const Tensor& a, const Tensor& b) { return Compare(EAGERVM_BUILTIN_OP(kGe), a, b); }

Tensor Minimum(const Tensor& a, const Tensor& b) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kMinimum);
  absl::Status s = internal::CheckSameDeviceAndDType(a, b, def.name);
  if (!s.ok() && internal::DTypesDiffer(a, b)) {
    return Promoted(def, a, b, [](const Tensor& pa, const Tensor& pb) { return Minimum(pa, pb); });
  }
  if (s.ok()) s = internal::CheckNumeric(a, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  absl::StatusOr<Shape> shape = internal::BroadcastShapes(a.shape(), b.shape(), def.name);
  if (!shape.ok()) return Tensor::Error(shape.status());
  return internal::SubmitOpWithOutput(def, a.dtype(), TensorMeta{*shape, a.dtype(), a.device()},
                                      {&a, &b});
}

Tensor Where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kWhere);
  absl::Status s = internal::CheckTensor(cond, def.name, "cond");
  if (s.ok()) s = internal::CheckSameDeviceAndDType(a, b, def.name);
  if (!s.ok() && cond.ok() && internal::DTypesDiffer(a, b)) {
    return Promoted(
        def, a, b, [&](const Tensor& pa, const Tensor& pb) { return Where(cond, pa, pb); },
        &cond.shape());
  }
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (cond.dtype() != DType::kBool) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("Where: argument 'cond' must be bool, got ", ToString(cond.dtype()), " ",
                  cond.shape(), "; compare (e.g. ops::Ne(x, zero)) or Cast it")));
  }
  if (cond.device() != a.device()) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("Where: inputs are on different devices (cond on ", cond.device().ToString(),
                  ", a and b on ", a.device().ToString(), "); use To()")));
  }
  absl::StatusOr<Shape> ab = internal::BroadcastShapes(a.shape(), b.shape(), def.name);
  if (!ab.ok()) return Tensor::Error(ab.status());
  absl::StatusOr<Shape> shape = internal::BroadcastShapes(cond.shape(), *ab, def.name);
  if (!shape.ok()) return Tensor::Error(shape.status());
  return internal::SubmitOpWithOutput(def, a.dtype(), TensorMeta{*shape, a.dtype(), a.device()},
                                      {&cond, &a, &b});
}

Tensor Abs(const Tensor& x) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kAbs);
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) s = internal::CheckNumeric(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x});
}

Tensor Pow(const Tensor& x, Scalar exponent) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kPow);
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) s = internal::CheckFloating(x, def.name);
  if (s.ok()) s = internal::CheckScalarFits(exponent, x.dtype(), def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x},
                                      {Scalar(exponent.to<double>())});
}

}  // namespace eagervm::ops
