// Dtype promotion of binary ops (docs/ops.md, "Dtype promotion"): numpy's
// table by default, refused in strict mode (VmOptions::strict_dtypes).
// Decided once per op call on the calling thread, and only when the two
// dtypes differ: a call on one dtype never gets here.
#ifndef EAGERVM_OPS_PROMOTION_H_
#define EAGERVM_OPS_PROMOTION_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

// The dtype both operands are computed in: the larger in
// bool < uint8 < int32 < int64 < float16, bfloat16 < float32 < float64,
// except float16 with bfloat16, which is float32 (neither holds the other).
// Pure; any thread.
DType PromoteTypes(DType a, DType b);

// True if a and b are both usable tensors (ok, with a meta) of different
// dtypes: the caller then promotes (PromoteOperands) before its usual checks.
bool DTypesDiffer(const Tensor& a, const Tensor& b);

// For a and b of different dtypes: replaces each handle whose dtype is not
// PromoteTypes(a, b) by its Cast (an op, queued here). Before anything is
// queued it returns InvalidArgument naming `op` (and changes nothing) in
// strict mode (naming both dtypes and shapes), for operands on two devices,
// and for shapes that do not broadcast (a, b, and `with` if given: Where's
// condition), so a call refused for its shapes queues no Cast.
absl::Status PromoteOperands(Tensor* a, Tensor* b, std::string_view op,
                             const Shape* with = nullptr);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_PROMOTION_H_
