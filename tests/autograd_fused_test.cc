// The fused backward kernels of Gelu, LayerNorm and Softmax (one
// instruction each on the CPU for float32 and float64): float64 gradients
// against finite differences, float32 ones against float64, over row
// lengths that take every path of the kernels (blocks of 16, of 8 or 4, the
// tail; rows along the last axis and along others), rows with a large mean
// or large logits, and Gelu at its edge values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

// Samples rounded to float32, so float32 and float64 runs see the same
// inputs and differ only by the kernels' arithmetic.
std::vector<double> Normal(std::mt19937_64& rng, size_t n, double mean, double sd) {
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<float>(std::normal_distribution<double>(mean, sd)(rng));
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
      ExpectClose(Grads<float>(data, shapes, r, shapes[0], f),
                  Grads<double>(data, shapes, r, shapes[0], f), 2e-6);
    }
  }
}

// The float64 gradients of sum(f(inputs) * r) against central differences,
// at every `stride`-th element of each input.
template <typename F>
void ExpectFiniteDifferences(const std::vector<std::vector<double>>& data,
                             const std::vector<Shape>& shapes, const Shape& out_shape, F f,
                             size_t stride) {
  std::mt19937_64 rng(99);
  const std::vector<double> r = Normal(rng, static_cast<size_t>(out_shape.numel()), 0, 1);
  const std::vector<std::vector<double>> g = Grads<double>(data, shapes, r, out_shape, f);
  ASSERT_EQ(g.size(), data.size());
  auto loss = [&](const std::vector<std::vector<double>>& d) {
    autograd::NoGradGuard no_grad;
    std::vector<Tensor> xs;
    for (size_t i = 0; i < d.size(); ++i) xs.push_back(Of<double>(d[i], shapes[i]));
    return *ops::Sum(f(xs) * Of<double>(r, out_shape)).template Item<double>();
  };
  const double h = 1e-6;
  for (size_t i = 0; i < data.size(); ++i) {
    for (size_t e = 0; e < data[i].size(); e += stride) {
      std::vector<std::vector<double>> up = data, down = data;
      up[i][e] += h, down[i][e] -= h;
      const double numeric = (loss(up) - loss(down)) / (2 * h);
      EXPECT_NEAR(g[i][e], numeric, 1e-5 * (1 + std::fabs(numeric)))
          << "input " << i << " element " << e;
    }
  }
}

TEST(FusedBackward, LayerNormFloat64MatchesFiniteDifferences) {
  // The float64 kernel's block paths (autograd_test's check has d = 5).
  std::mt19937_64 rng(12);
  const int64_t rows = 3, d = 37;
  ExpectFiniteDifferences(
      {Normal(rng, rows * d, 0.5, 1.0), Normal(rng, d, 1, 0.5), Normal(rng, d, 0, 0.5)},
      {Shape{rows, d}, Shape{d}, Shape{d}}, Shape{rows, d},
      [](const std::vector<Tensor>& t) { return ops::LayerNorm(t[0], t[1], t[2], 1e-5); }, 3);
}

TEST(FusedBackward, SoftmaxFloat64MatchesFiniteDifferences) {
  std::mt19937_64 rng(14);
  const Shape s{3, 37, 2};
  for (int axis : {0, 1, 2}) {
    SCOPED_TRACE(testing::Message() << "axis " << axis);
    ExpectFiniteDifferences(
        {Normal(rng, static_cast<size_t>(s.numel()), 0, 2)}, {s}, s,
        [axis](const std::vector<Tensor>& t) { return ops::Softmax(t[0], axis); }, 5);
  }
  const Shape rows{4, 37};  // the last axis: the vectorised path
  ExpectFiniteDifferences(
      {Normal(rng, static_cast<size_t>(rows.numel()), 0, 2)}, {rows}, rows,
      [](const std::vector<Tensor>& t) { return ops::Softmax(t[0], -1); }, 3);
}

TEST(FusedBackward, SoftmaxFloat32MatchesFloat64) {
  std::mt19937_64 rng(15);
  for (int64_t n : {1, 3, 16, 37, 64}) {
    for (int axis : {0, 1}) {
      SCOPED_TRACE(testing::Message() << "n " << n << " axis " << axis);
      const Shape s = axis == 1 ? Shape{8, n} : Shape{n, 8};
      const size_t count = static_cast<size_t>(s.numel());
      // Logits up to +-30 and 1000 apart from row to row: stable.
      std::vector<double> x = Normal(rng, count, 0, 10);
      for (size_t e = 0; e < count; ++e)
        x[e] = static_cast<float>(x[e] + 1000.0 * static_cast<double>(e % 3));
      const std::vector<double> r = Normal(rng, count, 0, 1);
      auto f = [axis](const std::vector<Tensor>& t) { return ops::Softmax(t[0], axis); };
      ExpectClose(Grads<float>({x}, {s}, r, s, f), Grads<double>({x}, {s}, r, s, f), 1e-5);
    }
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

// Relu's float32 backward (vectors of 16, 8 or 4 lanes, the tail one at a
// time): exactly g where x > 0, and 0 at 0, -0, below 0, -inf and NaN, at
// every position of a row of 16 * 64 + 7.
TEST(FusedBackward, ReluGradientIsGWherePositiveElseZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, -1.0f, 2.0f, inf, -inf, std::nanf(""), 1e-30f, -1e-30f};
  const size_t n = 16 * 64 + 7;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> x(n), w(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = i % 5 == 0 ? specials[(i / 5) % 9] : u(rng);
    w[i] = u(rng);
  }
  Tensor t = FromVector<float>(x, Shape{static_cast<int64_t>(n)}).RequiresGrad();
  Tensor tw = FromVector<float>(w, Shape{static_cast<int64_t>(n)});
  absl::StatusOr<std::vector<Tensor>> g = autograd::Grad(ops::Sum(ops::Relu(t) * tw), {t});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<float>> got = (*g)[0].ToVector<float>();
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t i = 0; i < n; ++i) EXPECT_EQ((*got)[i], x[i] > 0 ? w[i] : 0.0f) << i << " x " << x[i];
}

// CrossEntropy's float32 backward (one CrossEntropyGrad instruction) against
// the ops its formula composes elsewhere: bitwise equal, on rows of 1, 10
// (16 rows at a time), 37 and 100, with large logits; a label out of range,
// found when the backward runs, poisons the gradient with a message naming
// that label.
TEST(FusedBackward, CrossEntropyGradientEqualsTheComposedOpsBitwise) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-30, 30);
  for (const auto& [n, c] :
       std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {5, 10}, {256, 10}, {33, 37}, {7, 100}}) {
    std::vector<float> x(n * c);
    for (float& v : x) v = u(rng);
    x[0] = 1000.0f;
    std::vector<int64_t> y(n);
    for (int64_t r = 0; r < n; ++r) y[r] = (r * 7) % c;
    Tensor logits = FromVector<float>(x, {n, c}).RequiresGrad();
    Tensor labels = FromVector<int64_t>(y, {n});
    absl::StatusOr<std::vector<Tensor>> g =
        autograd::Grad(ops::CrossEntropy(logits, labels), {logits});
    ASSERT_TRUE(g.ok()) << g.status();
    autograd::NoGradGuard no_grad;
    const Tensor composed = (ops::Softmax(logits, 1) - ops::OneHot(labels, c, DType::kFloat32)) *
                            ops::DivScalar(Full({}, 1.0, DType::kFloat32), static_cast<double>(n));
    absl::StatusOr<std::vector<float>> got = (*g)[0].ToVector<float>();
    absl::StatusOr<std::vector<float>> want = composed.ToVector<float>();
    ASSERT_TRUE(got.ok() && want.ok());
    for (size_t i = 0; i < got->size(); ++i) {
      uint32_t a, b;
      std::memcpy(&a, &(*got)[i], 4);
      std::memcpy(&b, &(*want)[i], 4);
      EXPECT_EQ(a, b) << "[" << n << ", " << c << "] at " << i;
    }
  }
  Tensor logits = FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}).RequiresGrad();
  Tensor labels = FromVector<int64_t>({0, 3}, {2});
  absl::StatusOr<std::vector<Tensor>> g =
      autograd::Grad(ops::CrossEntropy(logits, labels), {logits});
  ASSERT_TRUE(g.ok()) << g.status();  // found only when the kernels run
  absl::Status s = (*g)[0].Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("labels[1] = 3 is out of range for 3 classes"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace eagervm
