// The functional op API. Every op validates its inputs on the calling thread:
// bad input returns an error tensor (or status) naming the op and the shapes,
// and nothing is queued. Valid calls queue work and return without waiting
// for it: they block only for back-pressure (VmOptions::max_in_flight), and
// never on a VM thread.
//
// Every function here may be called from any thread, concurrently, VM
// threads included (a kernel may queue ops). Arguments are read during the
// call only: the op keeps its own handles to the tensors it uses. Ops run on
// the current stream (Stream::Current) of their inputs' device, in submission
// order on that stream; runtime errors surface at Wait()/Sync()/Item().
#ifndef EAGERVM_OPS_H_
#define EAGERVM_OPS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eagervm/export.h"
#include "eagervm/scalar.h"
#include "eagervm/tensor.h"

namespace eagervm {
namespace ops {

// Binary elementwise ops with numpy broadcasting. Inputs of two dtypes are
// computed in their promoted dtype (numpy's table, docs/ops.md "Dtype
// promotion"), or refused with VmOptions::strict_dtypes.
EAGERVM_EXPORT Tensor Add(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Sub(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Mul(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Div(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Maximum(const Tensor& a, const Tensor& b);
// Tensor-scalar ops: the scalar is converted to x's dtype and must be exactly
// representable there (an int32 tensor * 2.5 is InvalidArgument, not "* 2").
EAGERVM_EXPORT Tensor AddScalar(const Tensor& x, Scalar s);
EAGERVM_EXPORT Tensor SubScalar(const Tensor& x, Scalar s);
EAGERVM_EXPORT Tensor MulScalar(const Tensor& x, Scalar s);
EAGERVM_EXPORT Tensor DivScalar(const Tensor& x, Scalar s);  // integer x / 0: InvalidArgument

// Unary elementwise ops.
EAGERVM_EXPORT Tensor Relu(const Tensor& x);
EAGERVM_EXPORT Tensor Neg(const Tensor& x);
EAGERVM_EXPORT Tensor Exp(const Tensor& x);
EAGERVM_EXPORT Tensor Log(const Tensor& x);
EAGERVM_EXPORT Tensor Sigmoid(const Tensor& x);
EAGERVM_EXPORT Tensor Tanh(const Tensor& x);
EAGERVM_EXPORT Tensor Sqrt(const Tensor& x);

// Linear algebra (2-D).
EAGERVM_EXPORT Tensor MatMul(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Transpose(const Tensor& x);  // materialised
// op(a) @ op(b), op a transpose where asked: [m,k] or [k,m] (transpose_a) @
// [k,n] or [n,k] (transpose_b) -> [m,n]. The transposes are BLAS flags: no
// transposed copy is made. CPU and CUDA (docs/ops.md, "Devices").
EAGERVM_EXPORT Tensor MatMul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b);
// [B,M,K] @ [B,K,N] -> [B,M,N], one GEMM per batch entry, transposes (of the
// last two axes) as BLAS flags. CPU and CUDA (docs/ops.md, "Devices").
EAGERVM_EXPORT Tensor BatchMatMul(const Tensor& a, const Tensor& b, bool transpose_a = false,
                                  bool transpose_b = false);

// Reductions: over everything (shape {}), or along `axis` (negative counts from the end).
EAGERVM_EXPORT Tensor Sum(const Tensor& x);
EAGERVM_EXPORT Tensor Sum(const Tensor& x, int axis, bool keepdim = false);
EAGERVM_EXPORT Tensor Mean(const Tensor& x);
EAGERVM_EXPORT Tensor Mean(const Tensor& x, int axis, bool keepdim = false);
EAGERVM_EXPORT Tensor Max(const Tensor& x);
EAGERVM_EXPORT Tensor Max(const Tensor& x, int axis, bool keepdim = false);
EAGERVM_EXPORT Tensor Min(const Tensor& x);  // as Max: NaN propagates, not over 0 elements
EAGERVM_EXPORT Tensor Min(const Tensor& x, int axis, bool keepdim = false);

EAGERVM_EXPORT Tensor Cast(const Tensor& x, DType dtype);

// Comparisons with numpy broadcasting, in the inputs' promoted dtype (any,
// bool included). The result is kBool. NaN compares unequal to everything.
EAGERVM_EXPORT Tensor Eq(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Ne(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Lt(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Le(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Gt(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor Ge(const Tensor& a, const Tensor& b);
// cond ? a : b elementwise; cond is kBool, a and b are promoted to one dtype,
// all three broadcast.
EAGERVM_EXPORT Tensor Where(const Tensor& cond, const Tensor& a, const Tensor& b);
// Elementwise minimum (numeric dtypes, broadcasting; NaN propagates like numpy).
EAGERVM_EXPORT Tensor Minimum(const Tensor& a, const Tensor& b);
// |x| for numeric dtypes (integer minimum wraps to itself, as in numpy).
EAGERVM_EXPORT Tensor Abs(const Tensor& x);
// x ** exponent for float32/float64 x (the exponent is rounded to x's dtype).
EAGERVM_EXPORT Tensor Pow(const Tensor& x, Scalar exponent);

// Softmax / log-softmax along `axis` (negative counts from the end), float32
// or float64. Numerically stable (the maximum is subtracted first): finite
// for logits in the thousands; a slice holding NaN or +inf becomes NaN.
EAGERVM_EXPORT Tensor Softmax(const Tensor& x, int axis);
EAGERVM_EXPORT Tensor LogSoftmax(const Tensor& x, int axis);
// Mean over the batch of -log_softmax(logits)[i, labels[i]], fused and stable.
// logits: float [N, C]; labels: int64 [N]. Returns a float scalar (shape {}),
// NaN for N == 0. A label outside [0, C) is found when the op runs: it poisons
// the result (InvalidArgument naming the label's position and value at Wait).
EAGERVM_EXPORT Tensor CrossEntropy(const Tensor& logits, const Tensor& labels);

// GELU, float32/float64: x * Phi(x) with the exact erf, or (tanh_approximation)
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
EAGERVM_EXPORT Tensor Gelu(const Tensor& x, bool tanh_approximation = false);
// (x - mean) / sqrt(var + eps) * weight + bias over the last axis of x (the
// biased variance); weight and bias are 1-D of that axis' length and x's dtype.
EAGERVM_EXPORT Tensor LayerNorm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                double eps = 1e-5);

// Index of the largest (smallest) element along `axis`, as int64: the first
// one on ties; a NaN counts as the extreme (numpy's rule). The axis must not
// be empty.
EAGERVM_EXPORT Tensor Argmax(const Tensor& x, int axis, bool keepdim = false);
EAGERVM_EXPORT Tensor Argmin(const Tensor& x, int axis, bool keepdim = false);
// index (int64, any shape) -> index.shape + [classes] of `dtype`, 1 at each
// index. An index outside [0, classes) poisons the result when the op runs.
EAGERVM_EXPORT Tensor OneHot(const Tensor& index, int64_t classes, DType dtype = DType::kFloat32);
// numpy.take(x, index, axis): x.shape[:axis] + index.shape + x.shape[axis+1:];
// index int64 of any shape. An embedding lookup is IndexSelect(table, 0, ids).
// An index outside [0, x.shape[axis]) poisons the result when the op runs
// (InvalidArgument naming its position and value); nothing is read out of bounds.
EAGERVM_EXPORT Tensor IndexSelect(const Tensor& x, int axis, const Tensor& index);
// The inverse of IndexSelect (torch.index_add, numpy.add.at along one axis):
// a new tensor equal to x, with each slice of `source` along `axis` added to
// the slice of x that `index` names; a repeated index adds every time.
// source.shape must be the shape IndexSelect(x, axis, index) has, in x's
// dtype (a numeric one). The additions are made in index order, on the CPU
// and on CUDA alike, so the result is deterministic (and the same bits on
// both). An index outside [0, x.shape[axis]) poisons the result when the op
// runs, as IndexSelect's does. On CUDA the four index-reading ops (this one,
// IndexSelect, OneHot, CrossEntropy) wait for their stream to check their
// indices: a host round trip per call.
EAGERVM_EXPORT Tensor IndexAdd(const Tensor& x, int axis, const Tensor& index,
                               const Tensor& source);

// Joins `xs` (at least one; one dtype, device and rank, equal outside `axis`)
// along `axis` into a new tensor. The span is read during the call only.
EAGERVM_EXPORT Tensor Concat(absl::Span<const Tensor> xs, int axis);
// `parts` new tensors of equal size along `axis` (numpy.split: the axis'
// extent must divide evenly). A rejected call returns max(parts, 1) error
// tensors (at most 4096), each carrying the rejection.
EAGERVM_EXPORT std::vector<Tensor> Split(const Tensor& x, int64_t parts, int axis);

// Samples of U[lo, hi) (a floating dtype, float16 and bfloat16 sampled in
// float32 then rounded; lo < hi, both finite), queued on
// the current stream of `device`. Like RandomNormal, element i depends only
// on (seed, i): the same seed gives the same tensor on any stream or device.
EAGERVM_EXPORT Tensor RandomUniform(Shape shape, DType dtype, Device device, uint64_t seed,
                                    double lo = 0, double hi = 1);

// In place: the VM orders these against every earlier read and write (WAR/WAW).
// The status is the rejection (nothing queued); runtime errors poison `self`.
// An input that shares bytes with the tensor written other than element for
// element (`CopyInto(x.Slice(0, n - 1), x.Slice(1, n))`, `AddInplace(x,
// x.Slice(0, 1))`) is read as it was before the op, on every device: the op
// then copies it first (one more op, queued on the calling thread).
[[nodiscard]] EAGERVM_EXPORT absl::Status AddInplace(const Tensor& self, const Tensor& other);
[[nodiscard]] EAGERVM_EXPORT absl::Status MulScalarInplace(const Tensor& self, Scalar s);
[[nodiscard]] EAGERVM_EXPORT absl::Status CopyInto(const Tensor& dst, const Tensor& src);
[[nodiscard]] EAGERVM_EXPORT absl::Status FillInplace(const Tensor& self, Scalar value);
// self -= other; self += alpha * other (alpha must be exactly representable in
// self's dtype); `other` broadcasts into self's shape, as in AddInplace.
[[nodiscard]] EAGERVM_EXPORT absl::Status SubInplace(const Tensor& self, const Tensor& other);
[[nodiscard]] EAGERVM_EXPORT absl::Status Axpy(const Tensor& self, Scalar alpha,
                                               const Tensor& other);
// self /= s; an integer self divided by 0 is rejected here.
[[nodiscard]] EAGERVM_EXPORT absl::Status DivScalarInplace(const Tensor& self, Scalar s);

}  // namespace ops

EAGERVM_EXPORT Tensor operator+(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor operator-(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor operator*(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor operator/(const Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor operator+(const Tensor& a, Scalar s);
EAGERVM_EXPORT Tensor operator-(const Tensor& a, Scalar s);
EAGERVM_EXPORT Tensor operator*(const Tensor& a, Scalar s);
EAGERVM_EXPORT Tensor operator/(const Tensor& a, Scalar s);
EAGERVM_EXPORT Tensor operator-(const Tensor& a);
// In place (AddInplace). If the call is rejected, `a` becomes an error tensor
// carrying the rejection, so the mistake is not lost.
EAGERVM_EXPORT Tensor& operator+=(Tensor& a, const Tensor& b);
EAGERVM_EXPORT Tensor& operator-=(Tensor& a, const Tensor& b);  // SubInplace
EAGERVM_EXPORT Tensor& operator*=(Tensor& a, Scalar s);         // MulScalarInplace
EAGERVM_EXPORT Tensor& operator/=(Tensor& a, Scalar s);         // DivScalarInplace
// Scalar on the left: s + a, s * a (one op); s - a is Neg then AddScalar;
// s / a divides a broadcast scalar tensor by a (integer zeros fail at sync).
EAGERVM_EXPORT Tensor operator+(Scalar s, const Tensor& a);
EAGERVM_EXPORT Tensor operator-(Scalar s, const Tensor& a);
EAGERVM_EXPORT Tensor operator*(Scalar s, const Tensor& a);
EAGERVM_EXPORT Tensor operator/(Scalar s, const Tensor& a);

}  // namespace eagervm

#endif  // EAGERVM_OPS_H_
