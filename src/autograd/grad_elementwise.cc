// Backward formulas of the elementwise ops: binary (with broadcasting:
// gradients are summed back to each input's shape), with a scalar, unary.
#include <cmath>

#include "autograd/grad_formulas.h"
#include "ops/grad_ops.h"

namespace eagervm::internal {
namespace {

using autograd::BackwardContext;
using G = absl::Span<const Tensor>;

// {da, db} summed to a's and b's shapes, computed only where needed.
template <typename Fa, typename Fb>
GradList Binary(const BackwardContext& c, Fa da, Fb db) {
  std::vector<Tensor> r(2);
  if (c.needs_input_grad(0)) r[0] = SumTo(da(), c.input_meta(0).shape);
  if (c.needs_input_grad(1)) r[1] = SumTo(db(), c.input_meta(1).shape);
  return r;
}

void DefineBinary() {
  DefineGradFormula(
      "Add",
      [](const BackwardContext& c, G g) {
        return Binary(
            c, [&] { return g[0]; }, [&] { return g[0]; });
      },
      kSaveNone, kSaveNone);
  DefineGradFormula(
      "Sub",
      [](const BackwardContext& c, G g) {
        return Binary(
            c, [&] { return g[0]; }, [&] { return ops::Neg(g[0]); });
      },
      kSaveNone, kSaveNone);
  DefineGradFormula(
      "Mul",
      [](const BackwardContext& c, G g) {
        return Binary(
            c, [&] { return g[0] * c.input(1); }, [&] { return g[0] * c.input(0); });
      },
      kSaveAll, kSaveNone);
  DefineGradFormula(
      "Div",
      [](const BackwardContext& c, G g) {
        const Tensor& a = c.input(0);
        const Tensor& b = c.input(1);
        return Binary(
            c, [&] { return g[0] / b; }, [&] { return ops::Neg(g[0] * a / (b * b)); });
      },
      kSaveAll, kSaveNone);
  // Ties send the gradient to a (Maximum: a >= b; Minimum: a <= b).
  DefineGradFormula(
      "Maximum",
      [](const BackwardContext& c, G g) {
        Tensor to_a = g[0] * MaskLike(ops::Ge(c.input(0), c.input(1)), g[0]);
        return Binary(
            c, [&] { return to_a; }, [&] { return g[0] - to_a; });
      },
      kSaveAll, kSaveNone);
  DefineGradFormula(
      "Minimum",
      [](const BackwardContext& c, G g) {
        Tensor to_a = g[0] * MaskLike(ops::Le(c.input(0), c.input(1)), g[0]);
        return Binary(
            c, [&] { return to_a; }, [&] { return g[0] - to_a; });
      },
      kSaveAll, kSaveNone);
  DefineGradFormula(
      "Where",
      [](const BackwardContext& c, G g) -> GradList {
        const Tensor& cond = c.input(0);
        const Tensor zero = ScalarLike(0.0, g[0]);
        std::vector<Tensor> r(3);
        if (c.needs_input_grad(1))
          r[1] = SumTo(ops::Where(cond, g[0], zero), c.input_meta(1).shape);
        if (c.needs_input_grad(2))
          r[2] = SumTo(ops::Where(cond, zero, g[0]), c.input_meta(2).shape);
        return r;
      },
      Bit(0), kSaveNone);
}

void DefineWithScalar() {
  auto pass = [](const BackwardContext&, G g) -> GradList { return std::vector<Tensor>{g[0]}; };
  DefineGradFormula("AddScalar", pass, kSaveNone, kSaveNone);
  DefineGradFormula("SubScalar", pass, kSaveNone, kSaveNone);
  DefineGradFormula(
      "MulScalar",
      [](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{ops::MulScalar(g[0], c.scalars()[0].to<double>())};
      },
      kSaveNone, kSaveNone);
  DefineGradFormula(
      "DivScalar",
      [](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{ops::DivScalar(g[0], c.scalars()[0].to<double>())};
      },
      kSaveNone, kSaveNone);
  DefineGradFormula(
      "Pow",
      [](const BackwardContext& c, G g) -> GradList {
        const double p = c.scalars()[0].to<double>();
        if (p == 0) return std::vector<Tensor>{ops::MulScalar(g[0], 0.0)};
        return std::vector<Tensor>{g[0] * ops::MulScalar(ops::Pow(c.input(0), p - 1), p)};
      },
      kSaveAll, kSaveNone);
}

// d/dx as a function of the output y (the formula saves only y).
template <typename F>
void DefineUnaryOfOutput(const char* op, F dy) {
  DefineGradFormula(
      op,
      [dy](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{dy(g[0], c.output(0))};
      },
      kSaveNone, kSaveAll);
}
template <typename F>
void DefineUnaryOfInput(const char* op, F dx) {
  DefineGradFormula(
      op,
      [dx](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{dx(g[0], c.input(0))};
      },
      kSaveAll, kSaveNone);
}

void DefineUnary() {
  DefineGradFormula(
      "Neg",
      [](const BackwardContext&, G g) -> GradList { return std::vector<Tensor>{ops::Neg(g[0])}; },
      kSaveNone, kSaveNone);
  // Relu: the gradient flows where the output is positive (x > 0); zero
  // elsewhere: one instruction (ops/grad_ops.h) where the backend has a
  // kernel, else a Where (one op fewer than a mask times g).
  DefineUnaryOfOutput("Relu", [](const Tensor& g, const Tensor& y) {
    if (g.meta() == y.meta() && HasReluGradKernel(y.device(), y.dtype())) return ReluGrad(y, g);
    const Tensor zero = ScalarLike(0.0, y);
    return ops::Where(ops::Gt(y, zero), g, zero);
  });
  DefineUnaryOfOutput("Exp", [](const Tensor& g, const Tensor& y) { return g * y; });
  DefineUnaryOfOutput("Sigmoid", [](const Tensor& g, const Tensor& y) { return g * (y - y * y); });
  DefineUnaryOfOutput("Tanh", [](const Tensor& g, const Tensor& y) { return g * (1.0 - y * y); });
  DefineUnaryOfOutput("Sqrt",
                      [](const Tensor& g, const Tensor& y) { return ops::MulScalar(g / y, 0.5); });
  DefineUnaryOfInput("Log", [](const Tensor& g, const Tensor& x) { return g / x; });
  DefineUnaryOfInput("Abs", [](const Tensor& g, const Tensor& x) {
    const Tensor zero = ScalarLike(0.0, x);
    return g * (MaskLike(ops::Gt(x, zero), g) - MaskLike(ops::Lt(x, zero), g));
  });
  // Gelu, erf form: x * Phi(x), so d/dx = Phi(x) + x * phi(x), with
  // Phi(x) = Gelu(x) / x (0.5 at 0). Tanh form: the derivative of
  // 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3). One instruction
  // (ops/grad_ops.h) where the backend has a kernel for the dtype.
  DefineGradFormula(
      "Gelu",
      [](const BackwardContext& c, G g) -> GradList {
        const Tensor& x = c.input(0);
        const bool tanh_form = c.scalars()[0].to<bool>();
        if (g[0].meta() == x.meta() && HasGeluGradKernel(x.device(), x.dtype()))
          return std::vector<Tensor>{GeluGrad(x, c.output(0), g[0], tanh_form)};
        if (tanh_form) {
          const double k = std::sqrt(2.0 / M_PI);
          const Tensor x2 = x * x;
          const Tensor t = ops::Tanh(ops::MulScalar(x + ops::MulScalar(x2 * x, 0.044715), k));
          const Tensor du = ops::MulScalar(ops::MulScalar(x2, 3 * 0.044715) + 1.0, k);
          const Tensor d =
              ops::MulScalar(t + 1.0, 0.5) + ops::MulScalar(x * (1.0 - t * t) * du, 0.5);
          return std::vector<Tensor>{g[0] * d};
        }
        const Tensor& y = c.output(0);
        const Tensor zero = ScalarLike(0.0, x);
        const Tensor phi_cdf = ops::Where(ops::Eq(x, zero), ScalarLike(0.5, x), y / x);
        const Tensor pdf =
            ops::MulScalar(ops::Exp(ops::MulScalar(x * x, -0.5)), 1.0 / std::sqrt(2.0 * M_PI));
        return std::vector<Tensor>{g[0] * (phi_cdf + x * pdf)};
      },
      kSaveAll, kSaveAll);
  DefineGradFormula(
      "Cast",
      [](const BackwardContext& c, G g) -> GradList {
        return std::vector<Tensor>{ops::Cast(g[0], c.input_meta(0).dtype)};
      },
      kSaveNone, kSaveNone);
}

}  // namespace

void DefineElementwiseGrads() {
  DefineBinary();
  DefineWithScalar();
  DefineUnary();
}

}  // namespace eagervm::internal
