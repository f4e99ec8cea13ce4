// Backward formulas of the MatMul family, copies and views.
#include "absl/container/flat_hash_map.h"
#include "autograd/grad_formulas.h"
#include "base/str_cat.h"
#include "ops/strided.h"

namespace eagervm::internal {
namespace {

using autograd::BackwardContext;
using G = absl::Span<const Tensor>;

// out = op(a) op(b), op = transpose where the flag is set. With A = op(a),
// B = op(b): dA = g B^T, dB = A^T g, then transposed back where a flag was
// set; every case is one MatMul with flags (no transposed copies).
template <typename MM>
GradList MatMulGrad(const BackwardContext& c, G g, bool ta, bool tb, MM mm) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  std::vector<Tensor> r(2);
  if (c.needs_input_grad(0)) r[0] = !ta ? mm(g[0], b, false, !tb) : mm(b, g[0], tb, true);
  if (c.needs_input_grad(1)) r[1] = !tb ? mm(a, g[0], !ta, false) : mm(g[0], a, true, ta);
  return r;
}

Tensor MatMul2d(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  return ops::MatMul(a, b, ta, tb);
}
Tensor Batched(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  return ops::BatchMatMul(a, b, ta, tb);
}

// The storage offset (in elements, from the base's first element) of every
// element of `geometry` in row-major order. `rel`: offset of its first.
std::vector<int64_t> ElementOffsets(const Shape& shape, const std::vector<int64_t>& strides,
                                    int64_t rel) {
  const int rank = Rank(shape);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(shape.numel()));
  if (shape.numel() == 0) return out;
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  int64_t at = rel;
  for (int64_t e = 0; e < shape.numel(); ++e) {
    out.push_back(at);
    for (int d = rank - 1; d >= 0; --d) {  // the next index, carrying
      if (++idx[d] < shape[d]) {
        at += strides[d];
        break;
      }
      at -= strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

// The gradient of a view of a base whose elements overlap (a view of an
// Expand view): the base has no buffer its elements own, so each view
// element's gradient goes to one base element at the same storage place
// (the first in row-major order; the Expand's own backward then sums the
// elements that share a place). A scatter-add (IndexAdd), so view elements
// that share a place add up too.
GradList OverlappingViewGrad(const GradNode& node, const Tensor& g) {
  const TensorImpl& base = *node.base_geometry;
  const TensorImpl& view = *node.view_geometry;
  const int64_t elem = static_cast<int64_t>(SizeOf(base.meta.dtype));
  const std::vector<int64_t> base_at = ElementOffsets(base.meta.shape, StridesOf(base), 0);
  const std::vector<int64_t> view_at =
      ElementOffsets(view.meta.shape, StridesOf(view), (view.offset - base.offset) / elem);
  absl::flat_hash_map<int64_t, int64_t> first;  // storage place -> base element
  for (size_t e = 0; e < base_at.size(); ++e) first.try_emplace(base_at[e], e);
  std::vector<int64_t> index;
  index.reserve(view_at.size());
  for (int64_t at : view_at) {
    auto it = first.find(at);
    if (it == first.end()) {
      return absl::InternalError(base::Cat(
          "the backward of ", node.op, ": a view element lies outside its base ", base.meta.shape));
    }
    index.push_back(it->second);
  }
  const int64_t n = base.meta.shape.numel();
  const Tensor flat_g = g.Contiguous().Reshape({view.meta.shape.numel()});
  const Tensor sum = ops::IndexAdd(
      Zeros(Shape{n}, base.meta.dtype, base.meta.device), 0,
      FromVector<int64_t>(index, Shape{static_cast<int64_t>(index.size())}, base.meta.device),
      flat_g);
  return std::vector<Tensor>{sum.Reshape(base.meta.shape)};
}

// A view's gradient. The view and its base are two layouts of one storage,
// so the gradient is built in a zeroed buffer laid out like that storage
// (the bytes the base spans): `g` is written through the view's layout, and
// read back through the base's, compact. A base whose elements overlap (an
// Expand view) has no such buffer: OverlappingViewGrad.
GradList ViewGrad(const BackwardContext& c, G g) {
  const GradNode& node = GradNode::Of(c);
  const TensorImpl& base = *node.base_geometry;
  const std::vector<int64_t> base_strides = StridesOf(base);
  if (HasOverlap(base.meta.shape, base_strides)) return OverlappingViewGrad(node, g[0]);
  const int64_t span = SpanElements(base.meta.shape, base_strides);
  Tensor buffer = Zeros(Shape{span}, base.meta.dtype, base.meta.device);
  if (!buffer.ok()) return buffer.status();
  auto on_buffer = [&](const TensorImpl& geometry) {
    auto impl = std::make_shared<TensorImpl>(geometry);
    impl->storage = ImplOf(buffer)->storage;
    impl->offset += ImplOf(buffer)->offset;
    return WrapImpl(std::move(impl));
  };
  if (absl::Status s = ops::CopyInto(on_buffer(*node.view_geometry), g[0]); !s.ok()) return s;
  return std::vector<Tensor>{on_buffer(base).Contiguous()};
}

}  // namespace

void DefineLinalgGrads() {
  DefineGradFormula(
      "MatMul",
      [](const BackwardContext& c, G g) { return MatMulGrad(c, g, false, false, MatMul2d); },
      kSaveAll, kSaveNone);
  DefineGradFormula(
      "MatMulTransposed",
      [](const BackwardContext& c, G g) {
        return MatMulGrad(c, g, c.scalars()[0].to<bool>(), c.scalars()[1].to<bool>(), MatMul2d);
      },
      kSaveAll, kSaveNone);
  DefineGradFormula(
      "BatchMatMul",
      [](const BackwardContext& c, G g) {
        return MatMulGrad(c, g, c.scalars()[0].to<bool>(), c.scalars()[1].to<bool>(), Batched);
      },
      kSaveAll, kSaveNone);
  DefineGradFormula(
      "Transpose",
      [](const BackwardContext&, G g) -> GradList {
        return std::vector<Tensor>{ops::Transpose(g[0])};
      },
      kSaveNone, kSaveNone);
  // Copies: the same-device Copy (Tensor::To, staging), To across devices.
  DefineGradFormula(
      "Copy", [](const BackwardContext&, G g) -> GradList { return std::vector<Tensor>{g[0]}; },
      kSaveNone, kSaveNone);
  DefineGradFormula(
      "To",
      [](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{g[0].To(c.input_meta(0).device)};
      },
      kSaveNone, kSaveNone);
  // Views.
  DefineGradFormula(
      "Reshape",
      [](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{g[0].Reshape(c.input_meta(0).shape)};
      },
      kSaveNone, kSaveNone);
  DefineGradFormula("Slice", ViewGrad, kSaveNone, kSaveNone);
  DefineGradFormula("Permute", ViewGrad, kSaveNone, kSaveNone);
  // An Expand view repeats elements: their gradients add up.
  DefineGradFormula(
      "Expand",
      [](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{SumTo(g[0], c.input_meta(0).shape)};
      },
      kSaveNone, kSaveNone);
  // Contiguous(): a compact copy of a view.
  DefineGradFormula(
      "StridedCopy",
      [](const BackwardContext&, G g) -> GradList { return std::vector<Tensor>{g[0]}; }, kSaveNone,
      kSaveNone);
}

}  // namespace eagervm::internal
