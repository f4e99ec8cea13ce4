#include "ops/promotion.h"

#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "eagervm/virtual_machine.h"
#include "ops/op_util.h"

namespace eagervm::internal {
namespace {

// Rank in the promotion lattice; float16 and bfloat16 share one.
int Rank(DType d) {
  switch (d) {
    case DType::kBool:
      return 0;
    case DType::kUInt8:
      return 1;
    case DType::kInt32:
      return 2;
    case DType::kInt64:
      return 3;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 4;
    case DType::kFloat32:
      return 5;
    case DType::kFloat64:
      return 6;
  }
  return 6;
}

}  // namespace

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  if (IsHalfFloat(a) && IsHalfFloat(b)) return DType::kFloat32;
  return Rank(a) >= Rank(b) ? a : b;
}

bool DTypesDiffer(const Tensor& a, const Tensor& b) {
  return a.ok() && b.ok() && a.dtype() != b.dtype();
}

absl::Status PromoteOperands(Tensor* a, Tensor* b, std::string_view op, const Shape* with) {
  if (a->device() != b->device()) {
    return absl::InvalidArgumentError(base::Cat(op, ": inputs are on different devices (",
                                                a->device().ToString(), " and ",
                                                b->device().ToString(), "); use To()"));
  }
  const DType to = PromoteTypes(a->dtype(), b->dtype());
  if (VirtualMachine::Get().options().strict_dtypes) {
    return absl::InvalidArgumentError(
        base::Cat(op, ": dtype mismatch ", a->dtype(), " ", a->shape(), " vs ", b->dtype(), " ",
                  b->shape(), " (strict dtypes: no implicit promotion to ", to,
                  "; use Cast, or turn off VmOptions::strict_dtypes / EAGERVM_STRICT_DTYPES)"));
  }
  absl::StatusOr<Shape> shape = BroadcastShapes(a->shape(), b->shape(), op);
  if (shape.ok() && with != nullptr) shape = BroadcastShapes(*with, *shape, op);
  if (!shape.ok()) return shape.status();
  if (a->dtype() != to) *a = ops::Cast(*a, to);
  if (b->dtype() != to) *b = ops::Cast(*b, to);
  if (!a->ok()) return a->status();
  return b->status();
}

}  // namespace eagervm::internal
