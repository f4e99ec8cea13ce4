// Tensor's strided views: Slice on any axis, Permute, T, Expand, and
// Contiguous (ops/strided.h has the layout rules).
#include <algorithm>

#include "base/str_cat.h"
#include "eagervm/tensor.h"
#include "ops/grad_hook.h"
#include "ops/op_util.h"
#include "ops/strided.h"
#include "vm/tensor_impl.h"

namespace eagervm {
namespace {

std::string Join(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += base::Cat(i > 0 ? "," : "", v[i]);
  return out + "]";
}

// A view of `base` with `shape` and `strides`, `extra_offset` bytes further
// into the storage; compact strides are dropped (a compact view).
Tensor MakeView(const Tensor& base, const Shape& shape, std::vector<int64_t> strides,
                int64_t extra_offset, const char* op) {
  auto view = std::make_shared<internal::TensorImpl>(*internal::ImplOf(base));
  view->meta.shape = shape;
  view->offset += extra_offset;
  if (internal::IsCompact(shape, strides)) {
    view->strides.clear();
  } else {
    view->strides = std::move(strides);
  }
  return internal::RecordedView(base, internal::WrapImpl(std::move(view)), op);
}

}  // namespace

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  absl::Status s = internal::CheckTensor(*this, "Slice", "self");
  if (!s.ok()) return Error(s);
  if (dim() == 0) {
    return Error(absl::InvalidArgumentError("Slice: cannot slice a scalar (shape [])"));
  }
  return Slice(0, begin, end);
}

Tensor Tensor::Slice(int axis, int64_t begin, int64_t end) const {
  absl::Status s = internal::CheckTensor(*this, "Slice", "self");
  if (!s.ok()) return Error(s);
  absl::StatusOr<int> a = internal::NormalizeAxis(axis, shape(), "Slice");
  if (!a.ok()) return Error(a.status());
  if (begin < 0 || end < begin || end > size(*a)) {
    return Error(absl::InvalidArgumentError(base::Cat("Slice: range [", begin, ", ", end,
                                                      ") is out of bounds for dim ", *a, " of ",
                                                      shape().ToString())));
  }
  std::vector<int64_t> strides = internal::StridesOf(*impl_);
  Shape out = shape();
  out[*a] = end - begin;
  const int64_t extra =
      out.numel() == 0 ? 0 : begin * strides[*a] * static_cast<int64_t>(SizeOf(dtype()));
  return MakeView(*this, out, std::move(strides), extra, "Slice");
}

Tensor Tensor::Permute(std::vector<int> dims) const {
  absl::Status s = internal::CheckTensor(*this, "Permute", "self");
  if (!s.ok()) return Error(s);
  const int rank = static_cast<int>(dim());
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  bool ok = static_cast<int>(dims.size()) == rank;
  for (size_t i = 0; ok && i < dims.size(); ++i) {
    int d = dims[i] < 0 ? dims[i] + rank : dims[i];
    ok = d >= 0 && d < rank && !seen[static_cast<size_t>(d)];
    if (ok) seen[static_cast<size_t>(d)] = true;
    dims[i] = d;
  }
  if (!ok) {
    std::vector<int64_t> given(dims.begin(), dims.end());
    return Error(absl::InvalidArgumentError(base::Cat("Permute: dims ", Join(given),
                                                      " are not a permutation of the ", rank,
                                                      " dims of ", shape().ToString())));
  }
  const std::vector<int64_t> strides = internal::StridesOf(*impl_);
  Shape out = shape();
  std::vector<int64_t> out_strides(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    out[i] = size(dims[static_cast<size_t>(i)]);
    out_strides[static_cast<size_t>(i)] =
        strides[static_cast<size_t>(dims[static_cast<size_t>(i)])];
  }
  return MakeView(*this, out, std::move(out_strides), 0, "Permute");
}

Tensor Tensor::T() const {
  absl::Status s = internal::CheckTensor(*this, "T", "self");
  if (!s.ok()) return Error(s);
  if (dim() != 2) {
    return Error(absl::InvalidArgumentError(
        base::Cat("T: needs a 2-D tensor, got ", shape().ToString(), "; use Permute")));
  }
  return Permute({1, 0});
}

Tensor Tensor::Expand(Shape target) const {
  absl::Status s = internal::CheckTensor(*this, "Expand", "self");
  if (!s.ok()) return Error(s);
  const int rank = static_cast<int>(dim());
  const int out_rank = static_cast<int>(target.dims().size());
  if (!target.IsValid() || out_rank < rank) {
    return Error(absl::InvalidArgumentError(
        base::Cat("Expand: cannot expand ", shape().ToString(), " to ", target.ToString(),
                  out_rank < rank ? ": the target has fewer dims" : ": invalid shape")));
  }
  const std::vector<int64_t> strides = internal::StridesOf(*impl_);
  std::vector<int64_t> out_strides(static_cast<size_t>(out_rank), 0);
  for (int d = 0; d < out_rank; ++d) {
    const int di = d - (out_rank - rank);
    if (di < 0) continue;  // a new leading dim: stride 0
    if (size(di) == target[d]) {
      out_strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(di)];
    } else if (size(di) != 1) {
      return Error(absl::InvalidArgumentError(
          base::Cat("Expand: cannot expand ", shape().ToString(), " to ", target.ToString(),
                    ": dim ", di, " has extent ", size(di), ", not 1 or ", target[d])));
    }
  }
  return MakeView(*this, target, std::move(out_strides), 0, "Expand");
}

Tensor Tensor::Contiguous() const {
  absl::Status s = internal::CheckTensor(*this, "Contiguous", "self");
  if (!s.ok()) return Error(s);
  if (impl_->strides.empty()) return *this;
  Tensor out = internal::MakeContiguous(*this, "Contiguous");
  if (internal::GradRecorder* recorder = internal::ActiveGradRecorder()) [[unlikely]]
    if (out.ok()) recorder->RecordCopy(*this, out, "StridedCopy");
  return out;
}

}  // namespace eagervm
