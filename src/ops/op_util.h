// Shape and scalar math shared by the ops (broadcasting, axes, scalars that
// must fit a dtype), with messages that name the op. Checks of tensor
// arguments are in ops/op_checks.h; making the output and queueing the call
// in ops/submit_op.h.
#ifndef EAGERVM_OPS_OP_UTIL_H_
#define EAGERVM_OPS_OP_UTIL_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "eagervm/scalar.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

// The numpy broadcast of two shapes, or "op: cannot broadcast [2,3] with [4]".
absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b, std::string_view op);

// A scalar argument is converted to the tensor's dtype and must survive that
// exactly: 2.5 or 3e9 for an int32 tensor is an error, not a silent rounding.
// Floating dtypes accept any scalar (IEEE rounding); bool accepts 0/1/true/false.
absl::Status CheckScalarFits(const Scalar& s, DType dtype, std::string_view op);
std::string ScalarToString(const Scalar& s);

// Normalises `axis` (negative counts from the end) against `shape`.
absl::StatusOr<int> NormalizeAxis(int axis, const Shape& shape, std::string_view op);
// The shape of a reduction of `in` along `axis` (normalised): `in` without
// that dimension, or with it as 1 when `keepdim`.
Shape ReducedShape(const Shape& in, int axis, bool keepdim);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OP_UTIL_H_
