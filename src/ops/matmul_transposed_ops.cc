// MatMul with transposed operands: op(a) @ op(b), op = transpose where asked.
// The transpose is a flag to BLAS (cblas_?gemm's CblasTrans); no transposed
// copy is made. Without transposes it is the plain MatMul op.
#include <limits>

#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/strided.h"
#include "ops/submit_op.h"

namespace eagervm::ops {

namespace {
// A transposed view (T()) as its compact base and a flipped flag (ops/strided.h).
bool Untranspose(const Tensor& a, const Tensor& b, bool* ta, bool* tb, Tensor* ua, Tensor* ub) {
  if (!a.ok() || !b.ok() || (a.is_contiguous() && b.is_contiguous())) return false;
  const bool ta0 = *ta, tb0 = *tb;
  *ua = internal::Untransposed(a, ta);
  *ub = internal::Untransposed(b, tb);
  return *ta != ta0 || *tb != tb0;
}
// Whether op(a) @ op(b) of rank-`rank` operands has matching inner dims as
// the caller gave them: a view whose shapes are wrong stays a view, so the
// error names the shapes the caller holds, not those of its base.
bool InnerDimsMatch(const Tensor& a, const Tensor& b, bool ta, bool tb, int rank) {
  if (a.dim() != rank || b.dim() != rank) return false;
  const int64_t k = ta ? a.size(rank - 2) : a.size(rank - 1);
  const int64_t kb = tb ? b.size(rank - 1) : b.size(rank - 2);
  return k == kb;
}
}  // namespace

Tensor MatMul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  if (Tensor ua, ub; InnerDimsMatch(a, b, transpose_a, transpose_b, 2) &&
                     Untranspose(a, b, &transpose_a, &transpose_b, &ua, &ub)) [[unlikely]]
    return MatMul(ua, ub, transpose_a, transpose_b);
  if (!transpose_a && !transpose_b) return MatMul(a, b);
  absl::Status s = internal::CheckSameDeviceAndDType(a, b, "MatMul");
  if (s.ok()) s = internal::CheckNumeric(a, "MatMul");
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (a.dim() != 2 || b.dim() != 2) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("MatMul: expects 2-D tensors, got a ", a.shape(), " and b ", b.shape())));
  }
  const int64_t m = transpose_a ? a.size(1) : a.size(0);
  const int64_t k = transpose_a ? a.size(0) : a.size(1);
  const int64_t kb = transpose_b ? b.size(1) : b.size(0);
  const int64_t n = transpose_b ? b.size(0) : b.size(1);
  if (k != kb) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("MatMul: inner dimensions do not match: a ", a.shape(), transpose_a ? ".T" : "",
                  " @ b ", b.shape(), transpose_b ? ".T" : "", " (", k, " != ", kb, ")")));
  }
  constexpr int64_t kMaxDim = std::numeric_limits<int>::max();  // BLAS takes int
  if (m > kMaxDim || k > kMaxDim || n > kMaxDim) {
    return Tensor::Error(absl::InvalidArgumentError(base::Cat("MatMul: dimensions above ", kMaxDim,
                                                              " are not supported: a ", a.shape(),
                                                              " @ b ", b.shape())));
  }
  return internal::SubmitOpWithOutput(EAGERVM_BUILTIN_OP(kMatMulTransposed), a.dtype(),
                                      TensorMeta{Shape{m, n}, a.dtype(), a.device()}, {&a, &b},
                                      {Scalar(transpose_a), Scalar(transpose_b)});
}

Tensor BatchMatMul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  if (Tensor ua, ub; InnerDimsMatch(a, b, transpose_a, transpose_b, 3) &&
                     Untranspose(a, b, &transpose_a, &transpose_b, &ua, &ub)) [[unlikely]]
    return BatchMatMul(ua, ub, transpose_a, transpose_b);
  absl::Status s = internal::CheckSameDeviceAndDType(a, b, "BatchMatMul");
  if (s.ok()) s = internal::CheckNumeric(a, "BatchMatMul");
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (a.dim() != 3 || b.dim() != 3) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("BatchMatMul: expects 3-D tensors [B,M,K] and [B,K,N], got a ", a.shape(),
                  " and b ", b.shape())));
  }
  if (a.size(0) != b.size(0)) {
    return Tensor::Error(absl::InvalidArgumentError(base::Cat("BatchMatMul: batch sizes differ: a ",
                                                              a.shape(), " and b ", b.shape(), " (",
                                                              a.size(0), " != ", b.size(0), ")")));
  }
  const int64_t m = transpose_a ? a.size(2) : a.size(1);
  const int64_t k = transpose_a ? a.size(1) : a.size(2);
  const int64_t kb = transpose_b ? b.size(2) : b.size(1);
  const int64_t n = transpose_b ? b.size(1) : b.size(2);
  if (k != kb) {
    return Tensor::Error(absl::InvalidArgumentError(base::Cat(
        "BatchMatMul: inner dimensions do not match: a ", a.shape(), transpose_a ? ".T" : "",
        " @ b ", b.shape(), transpose_b ? ".T" : "", " (", k, " != ", kb, ")")));
  }
  constexpr int64_t kMaxDim = std::numeric_limits<int>::max();  // BLAS takes int
  if (m > kMaxDim || k > kMaxDim || n > kMaxDim) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("BatchMatMul: matrix dimensions above ", kMaxDim, " are not supported: a ",
                  a.shape(), " @ b ", b.shape())));
  }
  return internal::SubmitOpWithOutput(EAGERVM_BUILTIN_OP(kBatchMatMul), a.dtype(),
                                      TensorMeta{Shape{a.size(0), m, n}, a.dtype(), a.device()},
                                      {&a, &b}, {Scalar(transpose_a), Scalar(transpose_b)});
}

}  // namespace eagervm::ops
