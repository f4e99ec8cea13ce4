// Backward formulas of the reductions (Sum, Mean, Max, Min; over all axes
// when the axis scalar is -1) and the softmax family.
#include "autograd/grad_formulas.h"
#include "ops/grad_ops.h"

namespace eagervm::internal {
namespace {

using autograd::BackwardContext;
using G = absl::Span<const Tensor>;

int64_t AxisOf(const BackwardContext& c) { return c.scalars()[0].to<int64_t>(); }

// Max and Min: the gradient is shared evenly by the elements equal to the
// result (ties split it, as NumPy's and PyTorch's amax do).
GradList ExtremumGrad(const BackwardContext& c, G g) {
  const Tensor& x = c.input(0);
  const int64_t axis = AxisOf(c);
  const Tensor y = UnReduce(c.output(0), c.input_meta(0), axis);
  const Tensor hit = MaskLike(ops::Eq(x, y), x);
  const Tensor count = axis < 0 ? ops::Sum(hit) : ops::Sum(hit, static_cast<int>(axis), true);
  const Tensor share = axis < 0 ? g[0] / count : UnReduce(g[0], c.input_meta(0), axis) / count;
  return std::vector<Tensor>{hit * share};
}

}  // namespace

void DefineReduceGrads() {
  DefineGradFormula(
      "Sum",
      [](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{UnReduce(g[0], c.input_meta(0), AxisOf(c))};
      },
      kSaveNone, kSaveNone);
  DefineGradFormula(
      "Mean",
      [](const BackwardContext& c, G g) -> GradList {
        const TensorMeta& in = c.input_meta(0);
        const int64_t axis = AxisOf(c);
        const int64_t n = axis < 0 ? in.shape.numel() : in.shape[static_cast<int>(axis)];
        return std::vector<Tensor>{
            ops::DivScalar(UnReduce(g[0], in, axis), static_cast<double>(n))};
      },
      kSaveNone, kSaveNone);
  DefineGradFormula("Max", ExtremumGrad, kSaveAll, kSaveAll);
  DefineGradFormula("Min", ExtremumGrad, kSaveAll, kSaveAll);

  // y = softmax(x): dx = y * (g - sum(g * y)) along the axis.
  DefineGradFormula(
      "Softmax",
      [](const BackwardContext& c, G g) -> GradList {
        const Tensor& y = c.output(0);
        const int axis = static_cast<int>(AxisOf(c));
        // One instruction (ops/grad_ops.h) where the backend has a kernel.
        if (g[0].meta() == y.meta() && HasSoftmaxGradKernel(y.device(), y.dtype()))
          return std::vector<Tensor>{SoftmaxGrad(y, g[0], axis)};
        return std::vector<Tensor>{y * (g[0] - ops::Sum(g[0] * y, axis, true))};
      },
      kSaveNone, kSaveAll);
  // y = log_softmax(x): dx = g - exp(y) * sum(g) along the axis.
  DefineGradFormula(
      "LogSoftmax",
      [](const BackwardContext& c, G g) -> GradList {
        const Tensor& y = c.output(0);
        const int axis = static_cast<int>(AxisOf(c));
        return std::vector<Tensor>{g[0] - ops::Exp(y) * ops::Sum(g[0], axis, true)};
      },
      kSaveNone, kSaveAll);
  // The mean over N rows of -log softmax(logits)[label]:
  // dlogits = (softmax(logits) - one_hot(labels)) * g / N.
  DefineGradFormula(
      "CrossEntropy",
      [](const BackwardContext& c, G g) -> GradList {
        const Tensor& logits = c.input(0);
        const Tensor& labels = c.input(1);
        if (g[0].meta() == TensorMeta{Shape{}, logits.dtype(), logits.device()} &&
            HasCrossEntropyGradKernel(logits.device(), logits.dtype()))
          return std::vector<Tensor>{CrossEntropyGrad(logits, labels, g[0]), Tensor()};
        const int64_t n = logits.size(0);
        const Tensor diff =
            ops::Softmax(logits, 1) - ops::OneHot(labels, logits.size(1), logits.dtype());
        return std::vector<Tensor>{diff * ops::DivScalar(g[0], static_cast<double>(n > 0 ? n : 1)),
                                   Tensor()};
      },
      kSaveAll, kSaveNone);
}

}  // namespace eagervm::internal
