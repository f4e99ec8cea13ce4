// Backward formulas of the MatMul family, copies and views.
#include "autograd/grad_formulas.h"

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

// A view's gradient: zeros of the base's shape with `g` written through the
// same view of them.
GradList ViewGrad(const BackwardContext& c, G g) {
  const GradNode& node = GradNode::Of(c);
  const TensorMeta& base = c.input_meta(0);
  Tensor grad_base = Zeros(base.shape, base.dtype, base.device);
  if (!grad_base.ok()) return grad_base.status();
  auto view = std::make_shared<TensorImpl>(*node.view_geometry);
  view->storage = ImplOf(grad_base)->storage;
  view->offset += ImplOf(grad_base)->offset;
  if (absl::Status s = ops::CopyInto(WrapImpl(std::move(view)), g[0]); !s.ok()) return s;
  return std::vector<Tensor>{grad_base};
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
}

}  // namespace eagervm::internal
