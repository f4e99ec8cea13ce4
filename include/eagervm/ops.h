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

#include "absl/status/status.h"
#include "eagervm/export.h"
#include "eagervm/scalar.h"
#include "eagervm/tensor.h"

namespace eagervm {
namespace ops {

// Binary elementwise ops with numpy broadcasting; both inputs must share a dtype.
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

// Reductions: over everything (shape {}), or along `axis` (negative counts from the end).
EAGERVM_EXPORT Tensor Sum(const Tensor& x);
EAGERVM_EXPORT Tensor Sum(const Tensor& x, int axis, bool keepdim = false);
EAGERVM_EXPORT Tensor Mean(const Tensor& x);
EAGERVM_EXPORT Tensor Mean(const Tensor& x, int axis, bool keepdim = false);
EAGERVM_EXPORT Tensor Max(const Tensor& x);
EAGERVM_EXPORT Tensor Max(const Tensor& x, int axis, bool keepdim = false);

EAGERVM_EXPORT Tensor Cast(const Tensor& x, DType dtype);

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

}  // namespace eagervm

#endif  // EAGERVM_OPS_H_
