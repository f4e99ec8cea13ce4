// Backward formulas of LayerNorm and the indexing family (IndexSelect,
// Concat, Split).

#include "autograd/grad_formulas.h"
#include "base/str_cat.h"
#include "ops/grad_ops.h"

namespace eagervm::internal {
namespace {

using autograd::BackwardContext;
using G = absl::Span<const Tensor>;

// LayerNorm over the last axis: xhat = (x - mean) * rstd, y = xhat * w + b.
// dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = g * w.
// Where the backend has a kernel for the dtype: one instruction
// (ops/grad_ops.h) for all three gradients.
GradList LayerNormBackward(const BackwardContext& c, G g) {
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  const double eps = c.scalars()[0].to<double>();
  if (g[0].meta() == x.meta() && HasLayerNormGradKernel(x.device(), x.dtype())) {
    absl::StatusOr<std::vector<Tensor>> r = LayerNormGrad(x, w, g[0], eps);
    if (!r.ok()) return r.status();
    for (int i = 0; i < 3; ++i)
      if (!c.needs_input_grad(i)) (*r)[static_cast<size_t>(i)] = Tensor();
    return r;
  }
  const Tensor centered = x - ops::Mean(x, -1, true);
  const Tensor var = ops::Mean(centered * centered, -1, true);
  const Tensor rstd = ops::Pow(var + eps, -0.5);
  const Tensor xhat = centered * rstd;
  std::vector<Tensor> r(3);
  if (c.needs_input_grad(0)) {
    const Tensor dxhat = g[0] * w;
    r[0] = rstd * (dxhat - ops::Mean(dxhat, -1, true) - xhat * ops::Mean(dxhat * xhat, -1, true));
  }
  if (c.needs_input_grad(1)) r[1] = SumTo(g[0] * xhat, c.input_meta(1).shape);
  if (c.needs_input_grad(2)) r[2] = SumTo(g[0], c.input_meta(2).shape);
  return r;
}

// IndexSelect along any axis: each picked slice's gradient is added back to
// the slice it came from (a scatter-add, O(gradient size)).
GradList IndexSelectGrad(const BackwardContext& c, G g) {
  const TensorMeta& x = c.input_meta(0);
  const int axis = static_cast<int>(c.scalars()[0].to<int64_t>());
  const Tensor zeros = Zeros(x.shape, x.dtype, x.device);
  return std::vector<Tensor>{ops::IndexAdd(zeros, axis, c.input(1), g[0]), Tensor()};
}

// IndexAdd: x's gradient passes through; source's is IndexSelect of it.
GradList IndexAddGrad(const BackwardContext& c, G g) {
  const int axis = static_cast<int>(c.scalars()[0].to<int64_t>());
  std::vector<Tensor> r(3);
  if (c.needs_input_grad(0)) r[0] = g[0];
  if (c.needs_input_grad(2)) r[2] = ops::IndexSelect(g[0], axis, c.input(1));
  return r;
}

GradList ConcatGrad(const BackwardContext& c, G g) {
  const int axis = static_cast<int>(c.scalars()[0].to<int64_t>());
  std::vector<Tensor> r(static_cast<size_t>(c.num_inputs()));
  int64_t begin = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const int64_t n = c.input_meta(i).shape[axis];
    // The gradient's slice: no index tensor to upload. Made compact once
    // here (a copy only where the slice is strided), not by each consumer
    // that needs compact input.
    if (c.needs_input_grad(i)) r[i] = g[0].Slice(axis, begin, begin + n).Contiguous();
    begin += n;
  }
  return r;
}

GradList SplitGrad(const BackwardContext& c, G g) {
  const int axis = static_cast<int>(c.scalars()[0].to<int64_t>());
  return std::vector<Tensor>{ops::Concat(g, axis)};
}

}  // namespace

void DefineNnGrads() {
  DefineGradFormula("LayerNorm", LayerNormBackward, Bit(0) | Bit(1), kSaveNone);
  DefineGradFormula("IndexSelect", IndexSelectGrad, Bit(1), kSaveNone);
  DefineGradFormula("IndexAdd", IndexAddGrad, Bit(1), kSaveNone);
  DefineGradFormula("Concat", ConcatGrad, kSaveNone, kSaveNone);
  DefineGradFormula("Split", SplitGrad, kSaveNone, kSaveNone);
}

}  // namespace eagervm::internal
