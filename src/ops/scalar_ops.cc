// Tensor-scalar ops. The scalar is converted to the tensor's dtype and must be
// exactly representable there (see CheckScalarFits): an int32 tensor times 2.5
// is an error rather than a silent "times 2".
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

Tensor WithScalar(const internal::OpDef& def, const Tensor& x, const Scalar& s) {
  absl::Status st = internal::CheckTensor(x, def.name, "x");
  if (st.ok()) st = internal::CheckNumeric(x, def.name);
  if (st.ok()) st = internal::CheckScalarFits(s, x.dtype(), def.name);
  if (!st.ok()) return Tensor::Error(std::move(st));
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x}, {s});
}

}  // namespace

Tensor AddScalar(const Tensor& x, Scalar s) {
  return WithScalar(EAGERVM_BUILTIN_OP(kAddScalar), x, s);
}
Tensor SubScalar(const Tensor& x, Scalar s) {
  return WithScalar(EAGERVM_BUILTIN_OP(kSubScalar), x, s);
}
Tensor MulScalar(const Tensor& x, Scalar s) {
  return WithScalar(EAGERVM_BUILTIN_OP(kMulScalar), x, s);
}

Tensor DivScalar(const Tensor& x, Scalar s) {
  // Checked here, where the caller can still see it: integer division by zero.
  if (x.ok() && !IsFloating(x.dtype()) && internal::CheckScalarFits(s, x.dtype(), "").ok() &&
      s.to<int64_t>() == 0) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("DivScalar: integer division by zero (", x.dtype(), " ", x.shape(), " / 0)")));
  }
  return WithScalar(EAGERVM_BUILTIN_OP(kDivScalar), x, s);
}

}  // namespace eagervm::ops

namespace eagervm {
Tensor operator+(const Tensor& a, Scalar s) { return ops::AddScalar(a, s); }
Tensor operator-(const Tensor& a, Scalar s) { return ops::SubScalar(a, s); }
Tensor operator*(const Tensor& a, Scalar s) { return ops::MulScalar(a, s); }
Tensor operator/(const Tensor& a, Scalar s) { return ops::DivScalar(a, s); }
}  // namespace eagervm
