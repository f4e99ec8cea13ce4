// Softmax, LogSoftmax and CrossEntropy: float32 within 1e-5 relative error of
// a float64 host reference on random inputs, finite for logits >= 1000,
// runtime label errors that poison the loss, and bad-input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::QueueProbe;
using testing::Rng;
using testing::Values;

// Float64 reference of (log-)softmax along `axis` of `shape`.
std::vector<double> RefSoftmax(const std::vector<double>& x, const Shape& shape, int axis,
                               bool log) {
  int64_t outer = 1, n = shape[axis], inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape[d];
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return o * n * inner + k * inner + i; };
      double m = -INFINITY;
      int64_t arg = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (x[at(k)] > m) arg = k;
        m = std::max(m, x[at(k)]);
      }
      // The sum as 1 + rest, so that log(sum) = log1p(rest) keeps rest's
      // digits when it is below double's epsilon.
      double rest = 0;
      for (int64_t k = 0; k < n; ++k) rest += k == arg ? 0 : std::exp(x[at(k)] - m);
      if (std::isnan(m)) rest = m;
      const double s = 1 + rest;
      for (int64_t k = 0; k < n; ++k) {
        out[at(k)] = log ? x[at(k)] - m - std::log1p(rest) : std::exp(x[at(k)] - m) / s;
      }
    }
  }
  return out;
}

// Max relative error of `got` against `want` (absolute below 1).
template <typename T>
double MaxRelError(const std::vector<T>& got, const std::vector<double>& want) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]) /
                       std::max(std::fabs(want[i]), std::numeric_limits<double>::min());
    worst = std::max(worst, err);
  }
  return worst;
}

std::vector<float> RandomLogits(Rng& rng, int64_t n, double scale, double offset) {
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<float>(offset + scale * std::normal_distribution<>(0, 1)(rng));
  return v;
}

TEST(Softmax, Float32WithinOneMillionthOfFloat64AlongEveryAxis) {
  Rng rng(1);
  for (int iter = 0; iter < 30; ++iter) {
    Shape shape = testing::RandomShape(rng, 4, 7);
    if (shape.rank() == 0) shape = {5};
    const int axis = static_cast<int>(rng() % shape.rank());
    // Offsets up to 3000: a naive exp would overflow float32 and float64.
    const double offset = (iter % 3) * 1500.0;
    const auto xf = RandomLogits(rng, shape.numel(), 1 + iter % 10, offset);
    const std::vector<double> xd(xf.begin(), xf.end());
    Tensor x = Make(xf, shape);
    for (bool log : {false, true}) {
      Tensor y = log ? ops::LogSoftmax(x, axis - (iter % 2) * shape.rank()) : ops::Softmax(x, axis);
      ASSERT_TRUE(y.ok()) << y.status();
      ASSERT_EQ(y.shape(), shape);
      const auto got = Values<float>(y);
      const auto want = RefSoftmax(xd, shape, axis, log);
      for (float v : got) ASSERT_TRUE(std::isfinite(v)) << shape << " axis " << axis;
      EXPECT_LE(MaxRelError(got, want), 1e-5) << (log ? "LogSoftmax " : "Softmax ") << shape
                                              << " axis " << axis << " offset " << offset;
    }
  }
}

double RefCrossEntropy(const std::vector<float>& x, const std::vector<int64_t>& labels, int64_t c) {
  double total = 0;
  for (size_t r = 0; r < labels.size(); ++r) {
    std::vector<double> row(x.begin() + r * c, x.begin() + (r + 1) * c);
    const auto lsm = RefSoftmax(row, {c}, 0, true);
    total -= lsm[labels[r]];
  }
  return total / labels.size();
}

// Long rows along the last axis (the vectorised float32 path: 16 at a time,
// then 4, then a partial group), with NaN and -inf in some rows.
TEST(Softmax, LongContiguousRowsWithinOneMillionthOfFloat64) {
  Rng rng(7);
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {1, 3, 4, 5, 15, 16, 17, 19, 31, 33, 100, 1024, 1031}) {
    const int64_t rows = 3;
    auto xf = RandomLogits(rng, rows * n, 12, n % 2 == 0 ? 1000.0 : -20.0);
    if (n > 4) xf[n + 2] = -inf;  // row 1: one -inf element, which gives 0
    const std::vector<double> xd(xf.begin(), xf.end());
    Tensor x = Make(xf, {rows, n});
    for (bool log : {false, true}) {
      const auto got = Values<float>(log ? ops::LogSoftmax(x, 1) : ops::Softmax(x, 1));
      const auto want = RefSoftmax(xd, {rows, n}, 1, log);
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isinf(want[i])) {
          EXPECT_EQ(got[i], want[i]) << n << " " << i;
        } else {
          // Below float32's normal range: within one subnormal step.
          EXPECT_LE(std::fabs(got[i] - want[i]),
                    1e-5 * std::fabs(want[i]) + std::numeric_limits<float>::denorm_min())
              << (log ? "LogSoftmax " : "Softmax ") << n << " " << i;
        }
      }
    }
    std::vector<int64_t> labels(rows);
    for (auto& l : labels) l = static_cast<int64_t>(rng() % n);
    if (n > 4) labels[1] = (n + 3) % n;  // not the -inf element
    const double ce = RefCrossEntropy(xf, labels, n);
    EXPECT_LE(std::fabs(Values<float>(ops::CrossEntropy(x, Make(labels, {rows})))[0] - ce),
              1e-5 * std::max(1.0, std::fabs(ce)))
        << n;
    // A NaN anywhere in a row makes that row NaN, and only that row.
    xf[2 * n + n / 2] = std::numeric_limits<float>::quiet_NaN();
    const auto s = Values<float>(ops::Softmax(Make(xf, {rows, n}), 1));
    for (int64_t k = 0; k < n; ++k) {
      EXPECT_TRUE(std::isnan(s[2 * n + k])) << n << " " << k;
      EXPECT_FALSE(std::isnan(s[k])) << n << " " << k;
    }
  }
}

TEST(Softmax, LargeLogitsStayFinite) {
  Tensor x = Make<float>({1000, 1001, 1002, -1000, 5000, 4999}, {2, 3});
  const auto s = Values<float>(ops::Softmax(x, 1));
  const auto want = RefSoftmax({1000, 1001, 1002, -1000, 5000, 4999}, {2, 3}, 1, false);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(s[i], want[i], 1e-6) << i;
  const auto l = Values<float>(ops::LogSoftmax(x, -1));
  EXPECT_NEAR(l[2], -0.40760596, 1e-6);
  EXPECT_NEAR(l[3], -6000.31326, 1e-2);
  EXPECT_NEAR(l[4], -0.31326169, 1e-6);
}

TEST(Softmax, NanAndInfinityAndEmpty) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto v = Values<float>(ops::Softmax(Make<float>({-inf, 0, 0, nan, 1, 2}, {2, 3}), 1));
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_FLOAT_EQ(v[1], 0.5f);
  for (int i = 3; i < 6; ++i) EXPECT_TRUE(std::isnan(v[i]));
  EXPECT_EQ(ops::Softmax(Zeros({0, 3}, DType::kFloat32), 1).shape(), (Shape{0, 3}));
  EXPECT_TRUE(ops::LogSoftmax(Zeros({2, 0}, DType::kFloat64), 1).Wait().ok());
}

TEST(CrossEntropy, MatchesFloat64ReferenceAndIsStable) {
  Rng rng(3);
  for (int iter = 0; iter < 20; ++iter) {
    const int64_t n = 1 + rng() % 40, c = 1 + rng() % 30;
    const auto x = RandomLogits(rng, n * c, 1 + iter, (iter % 2) * 2000.0);
    std::vector<int64_t> labels(n);
    for (auto& l : labels) l = static_cast<int64_t>(rng() % c);
    Tensor loss = ops::CrossEntropy(Make(x, {n, c}), Make(labels, {n}));
    ASSERT_TRUE(loss.ok()) << loss.status();
    EXPECT_EQ(loss.shape(), Shape{});
    const double want = RefCrossEntropy(x, labels, c);
    const float got = Values<float>(loss)[0];
    EXPECT_LE(std::fabs(got - want), 1e-5 * std::max(1.0, std::fabs(want))) << n << "x" << c;
  }
  // Confident and right: ~0; confident and wrong: ~the margin.
  Tensor logits = Make<float>({1000, 0, 0, 1000}, {2, 2});
  EXPECT_NEAR(Values<float>(ops::CrossEntropy(logits, Make<int64_t>({0, 1}, {2})))[0], 0, 1e-6);
  EXPECT_NEAR(Values<float>(ops::CrossEntropy(logits, Make<int64_t>({1, 1}, {2})))[0], 500, 1e-3);
  EXPECT_TRUE(std::isnan(Values<double>(
      ops::CrossEntropy(Zeros({0, 3}, DType::kFloat64), Zeros({0}, DType::kInt64)))[0]));
}

TEST(CrossEntropy, OutOfRangeLabelPoisonsTheLossNamingIt) {
  Tensor logits = Make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  for (int64_t bad : {int64_t{3}, int64_t{-1}, std::numeric_limits<int64_t>::max()}) {
    Tensor loss = ops::CrossEntropy(logits, Make<int64_t>({0, bad}, {2}));
    ASSERT_TRUE(loss.ok());  // found at run time
    const absl::Status s = loss.Wait();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("CrossEntropy: labels[1] = " + std::to_string(bad) +
                               " is out of range for 3 classes"),
              std::string::npos)
        << s;
    (void)Sync();
  }
  EXPECT_TRUE(Sync().ok());
  EXPECT_TRUE(ops::CrossEntropy(logits, Make<int64_t>({0, 2}, {2})).Wait().ok());
}

TEST(SoftmaxErrors, RejectedOnTheCallingThread) {
  Tensor f23 = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor i23 = Full({2, 3}, 1, DType::kInt32);
  Tensor l2 = Full({2}, int64_t{0}, DType::kInt64);
  Tensor l3 = Full({3}, int64_t{0}, DType::kInt64);
  Tensor l2i = Full({2}, 0, DType::kInt32);
  Tensor f3 = Full({3}, 1.0f, DType::kFloat32);
  Tensor f20 = Zeros({2, 0}, DType::kFloat32);
  Tensor scalar = Full({}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  QueueProbe probe;
  const std::pair<Tensor, const char*> cases[] = {
      {ops::Softmax(f23, 2), "Softmax: axis 2 is out of range for [2,3]"},
      {ops::LogSoftmax(f23, -3), "LogSoftmax: axis -3 is out of range for [2,3]"},
      {ops::Softmax(i23, 1), "Softmax: needs a floating-point tensor, got int32 [2,3]"},
      {ops::Softmax(scalar, 0), "Softmax: axis 0 given for a scalar"},
      {ops::CrossEntropy(f3, l3), "CrossEntropy: argument 'logits' must be 2-D [N, C], got [3]"},
      {ops::CrossEntropy(f23, l2i),
       "CrossEntropy: argument 'labels' must be a 1-D int64 tensor [N], got int32 [2]"},
      {ops::CrossEntropy(f23, l3),
       "CrossEntropy: logits [2,3] and labels [3] disagree on the batch size (2 != 3)"},
      {ops::CrossEntropy(i23, l2), "CrossEntropy: needs a floating-point tensor, got int32"},
      {ops::CrossEntropy(f20, l2), "CrossEntropy: logits [2,0] have no classes"},
  };
  EXPECT_EQ(probe.Count(), 0u);
  for (const auto& [t, message] : cases) {
    ASSERT_FALSE(t.ok()) << message;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
    EXPECT_NE(t.status().message().find(message), std::string::npos)
        << "got '" << t.status().message() << "', want '" << message << "'";
  }
}

}  // namespace
}  // namespace eagervm
