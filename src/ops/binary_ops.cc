// Binary elementwise ops with numpy broadcasting, and their operators.
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/promotion.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

Tensor Binary(const internal::OpDef& def, const Tensor& a, const Tensor& b) {
  // Same shape, dtype and device (most elementwise calls): the output's meta
  // is a's, nothing to broadcast, and every check below would pass.
  if (internal::UsableWithSameMeta(a, b) && internal::ImplOf(a)->meta.dtype != DType::kBool)
      [[likely]] {
    const TensorMeta& meta = internal::ImplOf(a)->meta;
    return internal::SubmitOpWithOutput(def, meta.dtype, meta, {&a, &b});
  }
  absl::StatusOr<Shape> shape = internal::CheckBroadcastOperands(a, b, def.name, /*numeric=*/true);
  if (!shape.ok()) {
    // Two dtypes: numpy promotion (or the strict refusal), decided only on
    // this path, so calls on one dtype pay nothing for it.
    if (internal::DTypesDiffer(a, b)) {
      Tensor pa = a, pb = b;
      absl::Status s = internal::PromoteOperands(&pa, &pb, def.name);
      if (!s.ok()) return Tensor::Error(std::move(s));
      return Binary(def, pa, pb);
    }
    return Tensor::Error(shape.status());
  }
  return internal::SubmitOpWithOutput(def, a.dtype(), TensorMeta{*shape, a.dtype(), a.device()},
                                      {&a, &b});
}

}  // namespace

Tensor Add(const Tensor& a, const Tensor& b) { return Binary(EAGERVM_BUILTIN_OP(kAdd), a, b); }
Tensor Sub(const Tensor& a, const Tensor& b) { return Binary(EAGERVM_BUILTIN_OP(kSub), a, b); }
Tensor Mul(const Tensor& a, const Tensor& b) { return Binary(EAGERVM_BUILTIN_OP(kMul), a, b); }
Tensor Div(const Tensor& a, const Tensor& b) { return Binary(EAGERVM_BUILTIN_OP(kDiv), a, b); }
Tensor Maximum(const Tensor& a, const Tensor& b) {
  return Binary(EAGERVM_BUILTIN_OP(kMaximum), a, b);
}

}  // namespace eagervm::ops

namespace eagervm {
Tensor operator+(const Tensor& a, const Tensor& b) { return ops::Add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return ops::Sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return ops::Mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return ops::Div(a, b); }
Tensor operator-(const Tensor& a) { return ops::Neg(a); }
}  // namespace eagervm
