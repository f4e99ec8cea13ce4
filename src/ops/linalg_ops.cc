// MatMul and Transpose (2-D). Float dtypes use BLAS; integer MatMul is exact
// (wrapping) through a plain loop; bool has no MatMul but can be transposed.
#include <limits>

#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/strided.h"
#include "ops/submit_op.h"

namespace eagervm::ops {

Tensor MatMul(const Tensor& a, const Tensor& b) {
  if (a.ok() && b.ok() && (!a.is_contiguous() || !b.is_contiguous()) && a.dim() == 2 &&
      b.dim() == 2 && a.size(1) == b.size(0)) [[unlikely]] {
    // A transposed view goes to BLAS as a transpose flag, not a copy (a
    // mismatch stays a view, so its error names the caller's shapes).
    bool ta = false, tb = false;
    Tensor ua = internal::Untransposed(a, &ta), ub = internal::Untransposed(b, &tb);
    if (ta || tb) return MatMul(ua, ub, ta, tb);
  }
  absl::Status s = internal::CheckSameDeviceAndDType(a, b, "MatMul");
  if (s.ok()) s = internal::CheckNumeric(a, "MatMul");
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (a.dim() != 2 || b.dim() != 2) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("MatMul: expects 2-D tensors, got a ", a.shape(), " and b ", b.shape())));
  }
  if (a.size(1) != b.size(0)) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("MatMul: inner dimensions do not match: a ", a.shape(), " @ b ", b.shape(), " (",
                  a.size(1), " != ", b.size(0), ")")));
  }
  constexpr int64_t kMaxDim = std::numeric_limits<int>::max();  // BLAS takes int
  if (a.size(0) > kMaxDim || a.size(1) > kMaxDim || b.size(1) > kMaxDim) {
    return Tensor::Error(absl::InvalidArgumentError(base::Cat("MatMul: dimensions above ", kMaxDim,
                                                              " are not supported: a ", a.shape(),
                                                              " @ b ", b.shape())));
  }
  return internal::SubmitOpWithOutput(
      EAGERVM_BUILTIN_OP(kMatMul), a.dtype(),
      TensorMeta{Shape{a.size(0), b.size(1)}, a.dtype(), a.device()}, {&a, &b});
}

Tensor Transpose(const Tensor& x) {
  absl::Status s = internal::CheckTensor(x, "Transpose", "x");
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (x.dim() != 2) {
    return Tensor::Error(
        absl::InvalidArgumentError(base::Cat("Transpose: expects a 2-D tensor, got ", x.shape())));
  }
  return internal::SubmitOpWithOutput(
      EAGERVM_BUILTIN_OP(kTranspose), x.dtype(),
      TensorMeta{Shape{x.size(1), x.size(0)}, x.dtype(), x.device()}, {&x});
}

}  // namespace eagervm::ops
