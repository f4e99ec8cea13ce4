#include "ops/overlap.h"

#include "base/str_cat.h"
#include "ops/builtin.h"
#include "ops/strided.h"
#include "ops/submit_op.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

bool OverlapsOtherThanElementwise(const Tensor& out, const Tensor& in) {
  const TensorImpl* o = internal::ImplOf(out).get();
  const TensorImpl* i = internal::ImplOf(in).get();
  if (o == nullptr || i == nullptr || !o->status.ok() || !i->status.ok()) return false;
  if (o->storage == nullptr || i->storage == nullptr) return false;
  if (o->storage != i->storage) {
    // In a capture, a symbolic input is bound per run to any tensor: a view
    // of another input or of a parameter may overlap `out` then, and the
    // plan must read it as eager would. Stage it always (a copy is value for
    // value what eager reads, overlapping or not). Intermediates of the
    // capture (the staging copy among them) alias nothing bound.
    using Role = vm::BlobObject::CaptureRole;
    const Role ro = o->blob()->capture_role();
    const Role ri = i->blob()->capture_role();
    return (ro == Role::kInput && ri != Role::kIntermediate) ||
           (ri == Role::kInput && ro != Role::kIntermediate);
  }
  // A strided view covers the byte span from its first to its last element.
  int64_t o_begin, o_end, i_begin, i_end;
  ByteSpan(*o, &o_begin, &o_end);
  ByteSpan(*i, &i_begin, &i_end);
  if (o_end <= i_begin || i_end <= o_begin) return false;  // disjoint (or empty)
  // Element for element: each output element reads only its own input one.
  return !(o_begin == i_begin && o->meta.shape == i->meta.shape && o->meta.dtype == i->meta.dtype &&
           o->strides == i->strides);
}

absl::StatusOr<Tensor> StagedIfOverlapping(const Tensor& out, const Tensor& in, const char* op) {
  if (!OverlapsOtherThanElementwise(out, in)) return in;
  // A Copy op, ordered after in's writers; its run-time errors name `op`.
  Tensor copy = NewTensor(in.meta());
  const Tensor* ins[] = {&in};
  const Tensor* outs[] = {&copy};
  absl::Status s = SubmitOp(EAGERVM_BUILTIN_OP(kCopy), in.dtype(), absl::MakeConstSpan(ins),
                            absl::MakeConstSpan(outs), {}, nullptr, op);
  if (!s.ok()) {
    return absl::Status(
        s.code(),
        base::Cat(op, ": staging an input that overlaps the written tensor: ", s.message()));
  }
  return copy;
}

}  // namespace eagervm::internal
