// Unary elementwise ops. Relu and Neg take any numeric dtype; the
// transcendental ones need float32/float64 (Cast integers first).
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

Tensor Unary(const internal::OpDef& def, const Tensor& x, bool floating_only) {
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok())
    s = floating_only ? internal::CheckFloating(x, def.name) : internal::CheckNumeric(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x});
}

}  // namespace

Tensor Relu(const Tensor& x) { return Unary(EAGERVM_BUILTIN_OP(kRelu), x, false); }
Tensor Neg(const Tensor& x) { return Unary(EAGERVM_BUILTIN_OP(kNeg), x, false); }
Tensor Exp(const Tensor& x) { return Unary(EAGERVM_BUILTIN_OP(kExp), x, true); }
Tensor Log(const Tensor& x) { return Unary(EAGERVM_BUILTIN_OP(kLog), x, true); }
Tensor Sigmoid(const Tensor& x) { return Unary(EAGERVM_BUILTIN_OP(kSigmoid), x, true); }
Tensor Tanh(const Tensor& x) { return Unary(EAGERVM_BUILTIN_OP(kTanh), x, true); }
Tensor Sqrt(const Tensor& x) { return Unary(EAGERVM_BUILTIN_OP(kSqrt), x, true); }

}  // namespace eagervm::ops
