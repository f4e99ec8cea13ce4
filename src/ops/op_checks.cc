#include "ops/op_checks.h"

#include "base/str_cat.h"
#include "ops/dtype_sets.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::internal {

absl::Status CheckSameDeviceAndDType(const Tensor& a, const Tensor& b, std::string_view op) {
  absl::Status s = CheckTensor(a, op, "a");
  if (!s.ok()) return s;
  s = CheckTensor(b, op, "b");
  if (!s.ok()) return s;
  if (a.device() != b.device()) {
    return absl::InvalidArgumentError(base::Cat(op, ": inputs are on different devices (",
                                                a.device().ToString(), " and ",
                                                b.device().ToString(), "); use To()"));
  }
  if (a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(base::Cat(
        op, ": dtype mismatch ", ToString(a.dtype()), " ", a.shape().ToString(), " vs ",
        ToString(b.dtype()), " ", b.shape().ToString(), " (eagervm does not promote; use Cast)"));
  }
  return absl::OkStatus();
}

absl::Status CheckSameMeta(const Tensor& a, const Tensor& b, std::string_view op) {
  absl::Status s = CheckSameDeviceAndDType(a, b, op);
  if (!s.ok()) return s;
  if (a.shape() != b.shape()) {
    return absl::InvalidArgumentError(
        base::Cat(op, ": shape mismatch ", a.shape().ToString(), " vs ", b.shape().ToString()));
  }
  return absl::OkStatus();
}

// The two checks below extend the sets of ops/dtype_sets.h, which most
// kernels register for: numeric is every dtype but bool, floating is
// IsFloating. uint8, float16 and bfloat16 are in the checks but not in the
// sets: kernels take them op by op (RegisterCpuTyped, or the float32 kernel
// widened, ops/widen.h), and an op without one refuses them at the call.
static_assert(kNumericDTypes.size() == 4 && !InDTypeSet(kNumericDTypes, DType::kBool) &&
              !InDTypeSet(kNumericDTypes, DType::kUInt8));
static_assert(kFloatDTypes.size() == 2 && InDTypeSet(kFloatDTypes, DType::kFloat32) &&
              InDTypeSet(kFloatDTypes, DType::kFloat64) && IsFloating(DType::kFloat32) &&
              IsFloating(DType::kFloat64) && !IsFloating(DType::kInt64));

absl::Status CheckNumeric(const Tensor& t, std::string_view op) {
  if (t.dtype() == DType::kBool) {
    return absl::InvalidArgumentError(
        base::Cat(op, ": not defined for bool tensors (", t.shape().ToString(), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckFloating(const Tensor& t, std::string_view op) {
  if (IsFloating(t.dtype())) return absl::OkStatus();
  return absl::InvalidArgumentError(base::Cat(op, ": needs a floating-point tensor, got ",
                                              t.dtype(), " ", t.shape(), "; use Cast"));
}

absl::StatusOr<Shape> CheckBroadcastOperands(const Tensor& a, const Tensor& b, std::string_view op,
                                             bool numeric) {
  absl::Status s = CheckSameDeviceAndDType(a, b, op);
  if (s.ok() && numeric) s = CheckNumeric(a, op);
  if (!s.ok()) return s;
  return BroadcastShapes(a.shape(), b.shape(), op);
}

absl::Status CheckBroadcastsInto(const Tensor& self, const Tensor& other, std::string_view op) {
  absl::Status s = CheckSameDeviceAndDType(self, other, op);
  if (s.ok()) s = CheckNumeric(self, op);
  if (!s.ok()) return s;
  absl::StatusOr<Shape> shape = BroadcastShapes(self.shape(), other.shape(), op);
  if (shape.ok() && *shape == self.shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      shape.ok()
          ? base::Cat(op, ": cannot broadcast other ", other.shape(), " into self ", self.shape(),
                      " (the result would be ", *shape, ")")
          : base::Cat(op, ": cannot broadcast other ", other.shape(), " into self ", self.shape()));
}

}  // namespace eagervm::internal
