// Strided views in the ops layer: the layout arithmetic of a view (element
// strides over a shared storage) and the one place where an op call with a
// strided operand is turned into kernel calls that never see a stride they
// do not expect (SubmitStridedOp, called by SubmitOp).
//
// Rules (docs/ops.md, "Views"):
// - A kernel reads a strided input natively only if its op declares it
//   (OpDef::cpu_strided_inputs) and it runs on the CPU: the operand is then
//   the byte span the view covers, and the view's shape and strides travel
//   in the call's attrs (StridedInputAttr*). Otherwise the kernel gets a
//   compact copy made for it first (the StridedCopy op; counted in
//   VmStats::contiguous_copies).
// - A written (mutated) strided input is computed into a compact temporary
//   and scattered back into the view (StridedCopyInto), which writes only
//   the view's elements. A view whose elements overlap (Expand) cannot be
//   written: InvalidArgument naming the op.
// - The VM tracks dependences per storage as before; a strided operand
//   covers the whole byte span from its first to its last element.
#ifndef EAGERVM_OPS_STRIDED_H_
#define EAGERVM_OPS_STRIDED_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/view_attrs.h"  // StridedShapeAttr, StridedStridesAttr
#include "eagervm/kernel.h"
#include "eagervm/tensor.h"
#include "ops/op_def.h"

namespace eagervm::internal {

struct TensorImpl;

// Row-major strides (elements) of `shape`.
std::vector<int64_t> CompactStrides(const Shape& shape);
// `t`'s strides: its own, or the compact ones.
std::vector<int64_t> StridesOf(const TensorImpl& t);
// True if a view of `shape` with `strides` is compact row-major (dims of
// extent 1 may have any stride).
bool IsCompact(const Shape& shape, absl::Span<const int64_t> strides);
// Elements from a view's first to its last element, inclusive (0 if empty).
int64_t SpanElements(const Shape& shape, absl::Span<const int64_t> strides);
// True if two indices of the view name one element (a stride 0 on a dim of
// extent > 1: Expand).
bool HasOverlap(const Shape& shape, absl::Span<const int64_t> strides);
// Byte range [begin, end) of its storage that `t` touches.
void ByteSpan(const TensorImpl& t, int64_t* begin, int64_t* end);
// A compact 1-D tensor of `t`'s dtype over the bytes `t` touches (shares
// its storage): the operand a kernel that reads strides gets.
Tensor SpanView(const Tensor& t);
// A compact copy of the strided `t` (one StridedCopy op; counted). `op`
// names the caller in errors.
Tensor MakeContiguous(const Tensor& t, const char* op);

// If `x` is a view of a compact tensor with its last two dims swapped
// (T(), or Permute({0, 2, 1}) of a 3-D one): that compact tensor, and
// *transpose flipped (MatMul then passes the transpose to BLAS instead of
// copying). Else `x`, *transpose unchanged.
Tensor Untransposed(const Tensor& x, bool* transpose);

// SubmitOp's path when an input is strided (see above).
absl::Status SubmitStridedOp(const OpDef& def, DType dtype, absl::Span<const Tensor* const> inputs,
                             absl::Span<const Tensor* const> outputs,
                             absl::Span<const Scalar> scalars,
                             const std::shared_ptr<const Attrs>* attrs, const char* name);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_STRIDED_H_
