// The fused backward kernels of Gelu and LayerNorm (one instruction each on
// the CPU for float32 and float64): float32 gradients against the float64
// ones (which autograd_test checks against finite differences), over row
// lengths that take every path of the kernels (blocks of 16, of 4, the
// tail), rows with a large mean, and Gelu at its edge values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

std::vector<double> Normal(std::mt19937_64& rng, size_t n, double mean, double sd) {
  std::vector<double> v(n);
  for (double& x : v) x = std::normal_distribution<double>(mean, sd)(rng);
  return v;
}

template <typename T>
Tensor Of(const std::vector<double>& v, const Shape& shape) {
  return FromVector<T>(std::vector<T>(v.begin(), v.end()), shape);
}

std::vector<double> Values(const Tensor& t) {
  absl::StatusOr<std::vector<double>> v = ops::Cast(t, DType::kFloat64).ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>();
}

// The gradients of sum(f(inputs) * r) with respect to every input, in T.
template <typename T, typename F>
std::vector<std::vector<double>> Grads(const std::vector<std::vector<double>>& data,
                                       const std::vector<Shape>& shapes,
                                       const std::vector<double>& r, const Shape& out_shape, F f) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < data.size(); ++i) xs.push_back(Of<T>(data[i], shapes[i]).RequiresGrad());
  Tensor loss = ops::Sum(f(xs) * Of<T>(r, out_shape));
  absl::StatusOr<std::vector<Tensor>> g = autograd::Grad(loss, xs);
  EXPECT_TRUE(g.ok()) << g.status();
  std::vector<std::vector<double>> out;
  if (g.ok())
    for (const Tensor& t : *g) out.push_back(Values(t));
  return out;
}

// Each float32 gradient within tol of the float64 one, relative to the
// largest magnitude of that gradient (a sum's rounding scales with it).
void ExpectClose(const std::vector<std::vector<double>>& got,
                 const std::vector<std::vector<double>>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].size(), want[i].size());
    double scale = 0;
    for (double w : want[i]) scale = std::max(scale, std::fabs(w));
    for (size_t e = 0; e < got[i].size(); ++e)
      EXPECT_NEAR(got[i][e], want[i][e], tol * scale) << "input " << i << " element " << e;
  }
}

TEST(FusedBackward, LayerNormFloat32MatchesFloat64) {
  std::mt19937_64 rng(11);
  // 37 = two blocks of 16, one of 4, a tail of 1; 4: one block of 4; 128:
  // the transformer's width.
  for (int64_t d : {1, 3, 4, 16, 37, 128}) {
    for (double mean : {0.0, 1000.0}) {
      SCOPED_TRACE(testing::Message() << "d " << d << " mean " << mean);
      const int64_t rows = 6;
      const size_t n = static_cast<size_t>(rows * d);
      const std::vector<std::vector<double>> data = {Normal(rng, n, mean, 1.0),
                                                     Normal(rng, static_cast<size_t>(d), 1, 0.5),
                                                     Normal(rng, static_cast<size_t>(d), 0, 0.5)};
      const std::vector<Shape> shapes = {Shape{rows, d}, Shape{d}, Shape{d}};
      const std::vector<double> r = Normal(rng, n, 0, 1);
      auto f = [](const std::vector<Tensor>& x) { return ops::LayerNorm(x[0], x[1], x[2], 1e-5); };
      // Large means: float32 keeps ~7 digits of x itself, so x - mean is
      // known to 1000 * 6e-8 and the gradients to about 1e-4 of their scale.
      ExpectClose(Grads<float>(data, shapes, r, shapes[0], f),
                  Grads<double>(data, shapes, r, shapes[0], f), mean == 0 ? 2e-6 : 2e-3);
    }
  }
}

TEST(FusedBackward, LayerNormFloat64MatchesFiniteDifferences) {
  // The float64 kernel's block paths (autograd_test's check has d = 5).
  std::mt19937_64 rng(12);
  const int64_t rows = 3, d = 37;
  const std::vector<double> x = Normal(rng, rows * d, 0.5, 1.0), w = Normal(rng, d, 1, 0.5),
                            b = Normal(rng, d, 0, 0.5), r = Normal(rng, rows * d, 0, 1);
  auto loss = [&](const std::vector<double>& xv, const std::vector<double>& wv,
                  const std::vector<double>& bv) {
    autograd::NoGradGuard no_grad;
    Tensor y =
        ops::LayerNorm(Of<double>(xv, {rows, d}), Of<double>(wv, {d}), Of<double>(bv, {d}), 1e-5);
    return *ops::Sum(y * Of<double>(r, {rows, d})).Item<double>();
  };
  const std::vector<std::vector<double>> g = Grads<double>(
      {x, w, b}, {Shape{rows, d}, Shape{d}, Shape{d}}, r, Shape{rows, d},
      [](const std::vector<Tensor>& t) { return ops::LayerNorm(t[0], t[1], t[2], 1e-5); });
  ASSERT_EQ(g.size(), 3u);
  const double h = 1e-6;
  for (size_t e = 0; e < x.size(); e += 7) {
    std::vector<double> up = x, down = x;
    up[e] += h, down[e] -= h;
    const double numeric = (loss(up, w, b) - loss(down, w, b)) / (2 * h);
    EXPECT_NEAR(g[0][e], numeric, 1e-5 * (1 + std::fabs(numeric))) << "x element " << e;
  }
  for (size_t e = 0; e < w.size(); e += 5) {
    std::vector<double> up = w, down = w;
    up[e] += h, down[e] -= h;
    const double numeric = (loss(x, up, b) - loss(x, down, b)) / (2 * h);
    EXPECT_NEAR(g[1][e], numeric, 1e-5 * (1 + std::fabs(numeric))) << "w element " << e;
    std::vector<double> bu = b, bd = b;
    bu[e] += h, bd[e] -= h;
    const double nb = (loss(x, w, bu) - loss(x, w, bd)) / (2 * h);
    EXPECT_NEAR(g[2][e], nb, 1e-5 * (1 + std::fabs(nb))) << "b element " << e;
  }
}

TEST(FusedBackward, GeluFloat32MatchesFloat64) {
  std::mt19937_64 rng(13);
  for (bool tanh_form : {false, true}) {
    SCOPED_TRACE(tanh_form ? "tanh" : "erf");
    // 1001 elements: the 16-, 8- and 4-lane loops and a tail, whichever runs.
    const size_t n = 1001;
    std::vector<double> x = Normal(rng, n, 0, 3);
    const std::vector<double> r = Normal(rng, n, 0, 1);
    auto f = [tanh_form](const std::vector<Tensor>& t) { return ops::Gelu(t[0], tanh_form); };
    const auto got = Grads<float>({x}, {Shape{int64_t{n}}}, r, Shape{int64_t{n}}, f);
    const auto want = Grads<double>({x}, {Shape{int64_t{n}}}, r, Shape{int64_t{n}}, f);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(want.size(), 1u);
    for (size_t e = 0; e < n; ++e) {
      EXPECT_NEAR(got[0][e], want[0][e], 3e-6 * (std::fabs(want[0][e]) + std::fabs(r[e])))
          << "x " << x[e];
    }
  }
}

TEST(FusedBackward, GeluGradientAtItsEdgeValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = {0.0, -0.0, inf, -inf, 40.0, -40.0, 1e-20, -1e-20};
  // Gelu'(x) = Phi(x) + x phi(x): 0.5 at 0, 1 at +inf and far right, 0 at
  // -inf and far left.
  const std::vector<double> want = {0.5, 0.5, 1, 0, 1, 0, 0.5, 0.5};
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(ToString(dtype));
    Tensor t = ops::Cast(FromVector<double>(x, Shape{8}), dtype).RequiresGrad();
    absl::StatusOr<std::vector<Tensor>> g = autograd::Grad(ops::Sum(ops::Gelu(t)), {t});
    ASSERT_TRUE(g.ok()) << g.status();
    const std::vector<double> got = Values((*g)[0]);
    for (size_t e = 0; e < x.size(); ++e) EXPECT_NEAR(got[e], want[e], 1e-6) << "x " << x[e];
  }
  // NaN stays NaN.
  Tensor t = FromVector<float>({std::nanf("")}, Shape{1}).RequiresGrad();
  absl::StatusOr<std::vector<Tensor>> g = autograd::Grad(ops::Sum(ops::Gelu(t)), {t});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(std::isnan(Values((*g)[0])[0]));
}

}  // namespace
}  // namespace eagervm
