// Checks of an op's tensor arguments (defined, ok, device, dtype, shape),
// shared by the ops: every failure names the op and the shapes. Shape and
// scalar math is in ops/op_util.h.
#ifndef EAGERVM_OPS_OP_CHECKS_H_
#define EAGERVM_OPS_OP_CHECKS_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eagervm/tensor.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

// Both defined, ok, on one device and of one dtype.
absl::Status CheckSameDeviceAndDType(const Tensor& a, const Tensor& b, std::string_view op);
// As above, and of equal shapes.
absl::Status CheckSameMeta(const Tensor& a, const Tensor& b, std::string_view op);
// Not bool (arithmetic is not defined on it).
absl::Status CheckNumeric(const Tensor& t, std::string_view op);
// float32 or float64, else "op: needs a floating-point tensor, got int32 [3]; use Cast".
absl::Status CheckFloating(const Tensor& t, std::string_view op);
// The operands of an element-wise op on two tensors: CheckSameDeviceAndDType,
// then CheckNumeric of `a` when `numeric`; their numpy broadcast shape.
absl::StatusOr<Shape> CheckBroadcastOperands(const Tensor& a, const Tensor& b, std::string_view op,
                                             bool numeric);
// The operands of an in-place op: CheckSameDeviceAndDType, CheckNumeric of
// self, and `other` broadcasts into self's shape (self never grows), else
// "op: cannot broadcast other [5,3] into self [3,5]".
absl::Status CheckBroadcastsInto(const Tensor& self, const Tensor& other, std::string_view op);

// The common case of an op on two tensors, in a few loads and no call: both
// defined, ok (not error tensors, made in this process) and of one device,
// dtype and shape. False sends the caller to its full checks, which name
// what is wrong; true is exactly "CheckSameMeta would return OK".
inline bool UsableWithSameMeta(const Tensor& a, const Tensor& b) {
  const TensorImpl* x = internal::ImplOf(a).get();
  const TensorImpl* y = internal::ImplOf(b).get();
  if (x == nullptr || y == nullptr) return false;
  const uint32_t generation = vm::ForkGeneration();
  return x->status.ok() && y->status.ok() && x->fork_generation == generation &&
         y->fork_generation == generation && x->meta.dtype == y->meta.dtype &&
         x->meta.device == y->meta.device && x->meta.shape == y->meta.shape;
}

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OP_CHECKS_H_
