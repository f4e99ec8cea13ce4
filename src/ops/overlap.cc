#include "ops/overlap.h"

#include "base/str_cat.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

bool OverlapsOtherThanElementwise(const Tensor& out, const Tensor& in) {
  const TensorImpl* o = out.impl().get();
  const TensorImpl* i = in.impl().get();
  if (o == nullptr || i == nullptr || !o->status.ok() || !i->status.ok()) return false;
  if (o->storage == nullptr || o->storage != i->storage) return false;
  const int64_t o_begin = o->offset;
  const int64_t o_end =
      o_begin + o->meta.shape.numel() * static_cast<int64_t>(SizeOf(o->meta.dtype));
  const int64_t i_begin = i->offset;
  const int64_t i_end =
      i_begin + i->meta.shape.numel() * static_cast<int64_t>(SizeOf(i->meta.dtype));
  if (o_end <= i_begin || i_end <= o_begin) return false;  // disjoint (or empty)
  // Element for element: each output element reads only its own input one.
  return !(o_begin == i_begin && o->meta.shape == i->meta.shape && o->meta.dtype == i->meta.dtype);
}

absl::StatusOr<Tensor> StagedIfOverlapping(const Tensor& out, const Tensor& in,
                                           std::string_view op) {
  if (!OverlapsOtherThanElementwise(out, in)) return in;
  Tensor copy = in.To(in.device());  // a Copy op: ordered after in's writers
  if (!copy.ok()) {
    return absl::Status(copy.status().code(),
                        base::Cat(op, ": staging an input that overlaps the written tensor: ",
                                  copy.status().message()));
  }
  return copy;
}

}  // namespace eagervm::internal
