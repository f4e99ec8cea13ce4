// More in-place arithmetic (SubInplace, Axpy, DivScalarInplace) and the
// operator forms built on the ops: scalar-on-the-left arithmetic and the
// compound assignments -=, *=, /=.
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "eagervm/status_macros.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {

absl::Status SubInplace(const Tensor& self, const Tensor& other) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckBroadcastsInto(self, other, "SubInplace"));
  return internal::SubmitOp(EAGERVM_BUILTIN_OP(kSubInplace), self.dtype(), {&self, &other}, {});
}

absl::Status Axpy(const Tensor& self, Scalar alpha, const Tensor& x) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckBroadcastsInto(self, x, "Axpy"));
  EAGERVM_RETURN_IF_ERROR(internal::CheckScalarFits(alpha, self.dtype(), "Axpy"));
  return internal::SubmitOp(EAGERVM_BUILTIN_OP(kAxpy), self.dtype(), {&self, &x}, {}, {alpha});
}

absl::Status DivScalarInplace(const Tensor& self, Scalar s) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(self, "DivScalarInplace", "self"));
  EAGERVM_RETURN_IF_ERROR(internal::CheckNumeric(self, "DivScalarInplace"));
  EAGERVM_RETURN_IF_ERROR(internal::CheckScalarFits(s, self.dtype(), "DivScalarInplace"));
  if (!IsFloating(self.dtype()) && s.to<int64_t>() == 0) {
    return absl::InvalidArgumentError(base::Cat("DivScalarInplace: integer division by zero (",
                                                self.dtype(), " ", self.shape(), " / 0)"));
  }
  return internal::SubmitOp(EAGERVM_BUILTIN_OP(kDivScalarInplace), self.dtype(), {&self}, {}, {s});
}

}  // namespace eagervm::ops

namespace eagervm {

Tensor operator+(Scalar s, const Tensor& a) { return ops::AddScalar(a, s); }
Tensor operator*(Scalar s, const Tensor& a) { return ops::MulScalar(a, s); }
Tensor operator-(Scalar s, const Tensor& a) {
  // s - a == (-a) + s, also for wrapping integers; the scalar is checked first
  // so that the error names the subtraction's scalar, not Neg.
  if (a.ok()) {
    absl::Status st = internal::CheckScalarFits(s, a.dtype(), "SubScalar");
    if (!st.ok()) return Tensor::Error(std::move(st));
  }
  return ops::AddScalar(ops::Neg(a), s);
}
Tensor operator/(Scalar s, const Tensor& a) {
  if (!a.ok()) return ops::Div(a, a);  // a's error, or Div naming the undefined tensor
  absl::Status st = internal::CheckScalarFits(s, a.dtype(), "Div");
  if (!st.ok()) return Tensor::Error(std::move(st));
  return ops::Div(Full(Shape{}, s, a.dtype(), a.device()), a);
}

Tensor& operator-=(Tensor& a, const Tensor& b) {
  absl::Status s = ops::SubInplace(a, b);
  if (!s.ok()) a = Tensor::Error(std::move(s));
  return a;
}
Tensor& operator*=(Tensor& a, Scalar s) {
  absl::Status st = ops::MulScalarInplace(a, s);
  if (!st.ok()) a = Tensor::Error(std::move(st));
  return a;
}
Tensor& operator/=(Tensor& a, Scalar s) {
  absl::Status st = ops::DivScalarInplace(a, s);
  if (!st.ok()) a = Tensor::Error(std::move(st));
  return a;
}

}  // namespace eagervm
