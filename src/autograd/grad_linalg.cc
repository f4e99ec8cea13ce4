// Backward formulas of the MatMul family, copies and views.
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

// A view's gradient. The view and its base are two layouts of one storage,
// so the gradient is built in a zeroed buffer laid out like that storage
// (the bytes the base spans): `g` is written through the view's layout, and
// read back through the base's, compact. A base whose elements overlap (an
// Expand view) has no such buffer: refused.
GradList ViewGrad(const BackwardContext& c, G g) {
  const GradNode& node = GradNode::Of(c);
  const TensorImpl& base = *node.base_geometry;
  const std::vector<int64_t> base_strides = StridesOf(base);
  if (HasOverlap(base.meta.shape, base_strides)) {
    return absl::UnimplementedError(
        base::Cat("the backward of ", node.op, " of an Expand view ", base.meta.shape,
                  " is not supported; view a Contiguous() copy of the expanded tensor instead"));
  }
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
