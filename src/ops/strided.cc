#include "ops/strided.h"

#include <algorithm>

#include "base/str_cat.h"
#include "ops/builtin.h"
#include "ops/submit_op.h"
#include "vm/intake.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

std::vector<int64_t> CompactStrides(const Shape& shape) {
  const int rank = static_cast<int>(shape.dims().size());
  std::vector<int64_t> s(static_cast<size_t>(rank));
  int64_t acc = 1;
  for (int d = rank - 1; d >= 0; --d) {
    s[static_cast<size_t>(d)] = acc;
    // Only an empty shape's partial products can overflow (a valid non-empty
    // one holds at most Shape::kMaxNumel elements): its strides address
    // nothing, so 0 serves.
    if (__builtin_mul_overflow(acc, shape[d], &acc)) acc = 0;
  }
  return s;
}

std::vector<int64_t> StridesOf(const TensorImpl& t) {
  return t.strides.empty() ? CompactStrides(t.meta.shape) : t.strides;
}

bool IsCompact(const Shape& shape, absl::Span<const int64_t> strides) {
  int64_t acc = 1;
  for (int d = static_cast<int>(shape.dims().size()) - 1; d >= 0; --d) {
    if (shape[d] == 0) return true;  // no elements: any layout is compact
    if (shape[d] != 1 && strides[static_cast<size_t>(d)] != acc) return false;
    if (__builtin_mul_overflow(acc, shape[d], &acc)) return true;  // only if empty
  }
  return true;
}

int64_t SpanElements(const Shape& shape, absl::Span<const int64_t> strides) {
  int64_t last = 0;
  for (size_t d = 0; d < shape.dims().size(); ++d) {
    if (shape[static_cast<int>(d)] == 0) return 0;
    last += (shape[static_cast<int>(d)] - 1) * strides[d];
  }
  return last + 1;
}

bool HasOverlap(const Shape& shape, absl::Span<const int64_t> strides) {
  if (shape.numel() == 0) return false;  // no elements, none shared
  for (size_t d = 0; d < shape.dims().size(); ++d) {
    if (shape[static_cast<int>(d)] > 1 && strides[d] == 0) return true;
  }
  return false;
}

void ByteSpan(const TensorImpl& t, int64_t* begin, int64_t* end) {
  const auto elem = static_cast<int64_t>(SizeOf(t.meta.dtype));
  *begin = t.offset;
  const int64_t n =
      t.strides.empty() ? t.meta.shape.numel() : SpanElements(t.meta.shape, t.strides);
  *end = t.offset + n * elem;
}

Tensor SpanView(const Tensor& t) {
  auto view = std::make_shared<TensorImpl>(*internal::ImplOf(t));
  view->meta.shape =
      Shape{SpanElements(internal::ImplOf(t)->meta.shape, internal::ImplOf(t)->strides)};
  view->strides.clear();
  return WrapImpl(std::move(view));
}

namespace {

std::string JoinDims(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += base::Cat(i > 0 ? "," : "", v[i]);
  return out + "]";
}

std::vector<int64_t> DimsOf(const Shape& s) { return {s.dims().begin(), s.dims().end()}; }

// Attrs {"shape", "strides"} of the strided view `t` (StridedCopy, StridedCopyInto).
std::shared_ptr<const Attrs> LayoutAttrs(const TensorImpl& t) {
  auto a = std::make_shared<Attrs>();
  (*a)["shape"] = DimsOf(t.meta.shape);
  (*a)["strides"] = t.strides;
  return a;
}

}  // namespace

Tensor Untransposed(const Tensor& x, bool* transpose) {
  const TensorImpl* impl = internal::ImplOf(x).get();
  if (impl == nullptr || !impl->status.ok() || impl->strides.empty()) return x;
  const int rank = static_cast<int>(impl->meta.shape.dims().size());
  if (rank < 2) return x;
  Shape base = impl->meta.shape;
  std::swap(base[rank - 1], base[rank - 2]);
  std::vector<int64_t> want = CompactStrides(base);
  std::swap(want[static_cast<size_t>(rank - 1)], want[static_cast<size_t>(rank - 2)]);
  if (want != impl->strides) return x;
  auto view = std::make_shared<TensorImpl>(*impl);
  view->meta.shape = base;
  view->strides.clear();
  *transpose = !*transpose;
  // A view of the same storage: autograd (if in use) routes its gradient
  // back to `x` through the two layouts.
  return RecordedView(x, WrapImpl(std::move(view)), "Permute");
}

Tensor MakeContiguous(const Tensor& t, const char* op) {
  const TensorImpl& impl = *internal::ImplOf(t);
  if (impl.strides.empty()) return t;
  Tensor out = NewTensor(impl.meta);
  Tensor span = SpanView(t);
  std::shared_ptr<const Attrs> attrs = LayoutAttrs(impl);
  const Tensor* ins[] = {&span};
  const Tensor* outs[] = {&out};
  absl::Status s = SubmitOp(EAGERVM_BUILTIN_OP(kStridedCopy), impl.meta.dtype,
                            absl::MakeConstSpan(ins), absl::MakeConstSpan(outs), {}, &attrs, op);
  if (!s.ok()) return Tensor::Error(std::move(s));
  NoteContiguousCopy();
  return out;
}

absl::Status SubmitStridedOp(const OpDef& def, DType dtype, absl::Span<const Tensor* const> inputs,
                             absl::Span<const Tensor* const> outputs,
                             absl::Span<const Scalar> scalars,
                             const std::shared_ptr<const Attrs>* attrs, const char* name) {
  const char* op = name != nullptr ? name : def.name.c_str();
  const size_t n = inputs.size();
  std::vector<Tensor> subst(n);
  std::vector<const Tensor*> ins(inputs.begin(), inputs.end());
  std::vector<size_t> written;  // strided inputs the kernel writes: scattered back after it
  std::shared_ptr<Attrs> native;
  const bool on_cpu =
      internal::ImplOf(*(!inputs.empty() ? inputs[0] : outputs[0]))->meta.device.is_cpu();
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = *inputs[i];
    if (internal::ImplOf(t) == nullptr || internal::ImplOf(t)->strides.empty()) continue;
    const TensorImpl& impl = *internal::ImplOf(t);
    if (def.mutated_mask.has(i)) {
      if (HasOverlap(impl.meta.shape, impl.strides)) {
        return absl::InvalidArgumentError(
            base::Cat(op, ": cannot write through an Expand view (shape ",
                      impl.meta.shape.ToString(), ", strides ", JoinDims(impl.strides),
                      "): several of its indices name one element; write to a Contiguous() copy"));
      }
      const bool overwritten = def.overwritten_mask.has(i);
      subst[i] = overwritten ? NewTensor(impl.meta) : MakeContiguous(t, op);
      written.push_back(i);
    } else if (on_cpu && i < 64 && ((def.cpu_strided_inputs >> i) & 1)) {
      if (native == nullptr) {
        native = attrs != nullptr && *attrs != nullptr ? std::make_shared<Attrs>(**attrs)
                                                       : std::make_shared<Attrs>();
      }
      (*native)[StridedShapeAttr(static_cast<int>(i))] = DimsOf(impl.meta.shape);
      (*native)[StridedStridesAttr(static_cast<int>(i))] = impl.strides;
      subst[i] = SpanView(t);
    } else {
      subst[i] = MakeContiguous(t, op);
    }
    if (!subst[i].ok()) return subst[i].status();
    ins[i] = &subst[i];
  }
  std::shared_ptr<const Attrs> native_const = native;
  // Unrecorded: autograd (if in use) records the call as the user made it,
  // with the strided inputs, around SubmitOp.
  absl::Status s = SubmitOpUnrecorded(def, dtype, absl::MakeConstSpan(ins), outputs, scalars,
                                      native != nullptr ? &native_const : attrs, name);
  if (!s.ok()) return s;
  for (size_t i : written) {
    const Tensor& dst = *inputs[i];
    Tensor span = SpanView(dst);
    std::shared_ptr<const Attrs> layout = LayoutAttrs(*internal::ImplOf(dst));
    const Tensor* scatter_ins[] = {&span, &subst[i]};
    s = SubmitOp(EAGERVM_BUILTIN_OP(kStridedCopyInto), internal::ImplOf(dst)->meta.dtype,
                 absl::MakeConstSpan(scatter_ins), {}, {}, &layout, op);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace eagervm::internal
