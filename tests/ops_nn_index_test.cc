// Gelu, LayerNorm, Argmax/Argmin, OneHot and IndexSelect against host
// references, their runtime index errors (poisoned outputs naming the index)
// and their bad-input errors (rejected on the calling thread).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::QueueProbe;
using testing::RandomData;
using testing::Rng;
using testing::Values;

TEST(Gelu, ErfAndTanhForms) {
  Rng rng(1);
  const auto x = RandomData<double>(rng, 64);
  std::vector<double> erf_form, tanh_form;
  for (double v : x) {
    erf_form.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    tanh_form.push_back(0.5 * v *
                        (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
  }
  Tensor t = Make(x, {8, 8});
  testing::ExpectNear(Values<double>(ops::Gelu(t)), erf_form, "Gelu erf");
  testing::ExpectNear(Values<double>(ops::Gelu(t, /*tanh_approximation=*/true)), tanh_form,
                      "Gelu tanh");
  const auto f = Values<float>(ops::Gelu(Make<float>({-100, 0, 100, 1}, {4})));
  EXPECT_EQ(f[0], -0.0f);
  EXPECT_EQ(f[1], 0.0f);
  EXPECT_EQ(f[2], 100.0f);
  EXPECT_NEAR(f[3], 0.8413447460685429, 1e-6);
}

TEST(LayerNorm, MatchesFloat64ReferenceWithinOneMillionth) {
  Rng rng(2);
  for (int iter = 0; iter < 20; ++iter) {
    Shape shape = testing::RandomShape(rng, 3, 9);
    if (shape.rank() == 0) shape = {7};
    const int64_t d = shape[shape.rank() - 1];
    std::vector<float> x(static_cast<size_t>(shape.numel()));
    for (auto& v : x) v = static_cast<float>(1000 * (iter % 3) + std::normal_distribution<>()(rng));
    const auto w = RandomData<float>(rng, d), b = RandomData<float>(rng, d);
    const double eps = iter % 2 ? 1e-5 : 1e-3;
    const auto got = Values<float>(ops::LayerNorm(Make(x, shape), Make(w, {d}), Make(b, {d}), eps));
    ASSERT_EQ(got.size(), x.size());
    for (int64_t r = 0; r < shape.numel() / d; ++r) {
      double mean = 0, var = 0;
      for (int64_t k = 0; k < d; ++k) mean += x[r * d + k];
      mean /= d;
      for (int64_t k = 0; k < d; ++k) var += (x[r * d + k] - mean) * (x[r * d + k] - mean);
      var /= d;
      for (int64_t k = 0; k < d; ++k) {
        const double want = (x[r * d + k] - mean) / std::sqrt(var + eps) * w[k] + b[k];
        ASSERT_NEAR(got[r * d + k], want, 1e-5 * std::max(1.0, std::fabs(want)))
            << shape << " row " << r << " col " << k;
      }
    }
  }
}

TEST(Argmax, FirstOccurrenceNanWinsKeepdim) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Make<float>({1, 5, 5, 2, nan, 0, 7, 7, 7}, {3, 3});
  EXPECT_EQ(Values<int64_t>(ops::Argmax(x, 1)), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(Values<int64_t>(ops::Argmin(x, 1)), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(Values<int64_t>(ops::Argmax(x, 0)), (std::vector<int64_t>{2, 1, 2}));
  Tensor k = ops::Argmax(x, -1, /*keepdim=*/true);
  EXPECT_EQ(k.shape(), (Shape{3, 1}));
  EXPECT_EQ(k.dtype(), DType::kInt64);
  Tensor i = Make<int32_t>({3, -1, 9, 9, 2, -5}, {2, 3});  // ties: the first
  EXPECT_EQ(Values<int64_t>(ops::Argmax(i, 1)), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(Values<int64_t>(ops::Argmin(i, 1)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ops::Argmax(Zeros({0, 3}, DType::kInt64), 1).shape(), (Shape{0}));
}

TEST(Min, AllAndAlongAnAxis) {
  const int32_t lo = std::numeric_limits<int32_t>::min();
  Tensor i = Make<int32_t>({3, lo, 9, 9, 2, -5}, {2, 3});
  EXPECT_EQ(Values<int32_t>(ops::Min(i)), (std::vector<int32_t>{lo}));
  EXPECT_EQ(Values<int32_t>(ops::Min(i, 1)), (std::vector<int32_t>{lo, -5}));
  EXPECT_EQ(Values<int32_t>(ops::Min(i, 0, true)), (std::vector<int32_t>{3, lo, -5}));
  EXPECT_EQ(ops::Min(i, 0, true).shape(), (Shape{1, 3}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(Values<float>(ops::Min(Make<float>({1, nan, -2}, {3})))[0]));
  Tensor empty = ops::Min(Zeros({2, 0}, DType::kFloat32), 1);
  EXPECT_NE(empty.status().message().find(
                "Min: axis 1 of [2,0] has size 0; the minimum of nothing is undefined"),
            std::string::npos)
      << empty.status();
}

TEST(OneHot, IndicesToRows) {
  Tensor idx = Make<int64_t>({2, 0, 1, 2}, {2, 2});
  Tensor h = ops::OneHot(idx, 3);
  EXPECT_EQ(h.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(h.dtype(), DType::kFloat32);
  EXPECT_EQ(Values<float>(h), (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(Values<int32_t>(ops::OneHot(Make<int64_t>({1}, {1}), 2, DType::kInt32)),
            (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(ops::OneHot(Zeros({0}, DType::kInt64), 0).shape(), (Shape{0, 0}));
}

TEST(IndexSelect, EmbeddingLookupAndOtherAxes) {
  Rng rng(4);
  const auto table = RandomData<float>(rng, 50 * 8);
  Tensor w = Make(table, {50, 8});
  Tensor ids = Make<int64_t>({3, 49, 0, 3, 7, 7}, {2, 3});
  Tensor e = ops::IndexSelect(w, 0, ids);
  ASSERT_EQ(e.shape(), (Shape{2, 3, 8}));
  const auto got = Values<float>(e);
  const int64_t id[] = {3, 49, 0, 3, 7, 7};
  for (int j = 0; j < 6; ++j) {
    for (int k = 0; k < 8; ++k) ASSERT_EQ(got[j * 8 + k], table[id[j] * 8 + k]) << j << "," << k;
  }
  // Axis 1 of [2,3]: columns.
  Tensor m = Make<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(Values<int32_t>(ops::IndexSelect(m, -1, Make<int64_t>({2, 0}, {2}))),
            (std::vector<int32_t>{3, 1, 6, 4}));
  EXPECT_EQ(ops::IndexSelect(m, 0, Zeros({0}, DType::kInt64)).shape(), (Shape{0, 3}));
}

TEST(IndexAdd, AddsEverySliceAtItsIndexRepeatsIncluded) {
  // Axis 0: rows 0 and 2, row 2 twice.
  Tensor x = Make<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor src = Make<float>({10, 20, 30, 40, 50, 60}, {3, 2});
  Tensor r = ops::IndexAdd(x, 0, Make<int64_t>({2, 0, 2}, {3}), src);
  EXPECT_EQ(Values<float>(r), (std::vector<float>{31, 42, 3, 4, 65, 86}));
  EXPECT_EQ(Values<float>(x), (std::vector<float>{1, 2, 3, 4, 5, 6}));  // x unchanged
  // Axis 1 (last) of [2,3] with a [2,2] index: source [2,2,2].
  Tensor m = Make<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor s2 = Make<int32_t>({1, 1, 1, 1, 2, 2, 2, 2}, {2, 2, 2});
  EXPECT_EQ(Values<int32_t>(ops::IndexAdd(m, -1, Make<int64_t>({0, 0, 2, 1}, {2, 2}), s2)),
            (std::vector<int32_t>{3, 3, 4, 8, 7, 8}));
  // An empty index adds nothing.
  EXPECT_EQ(ops::IndexAdd(x, 0, Zeros({0}, DType::kInt64), Zeros({0, 2}, DType::kFloat32)).shape(),
            (Shape{3, 2}));
}

TEST(IndexAdd, RejectsABadSourceAndPoisonsOnABadIndex) {
  Tensor x = Make<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor idx = Make<int64_t>({0, 1}, {2});
  for (const Tensor& bad : {Zeros({2, 3}, DType::kFloat32), Zeros({2, 2}, DType::kFloat64)}) {
    Tensor r = ops::IndexAdd(x, 0, idx, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("IndexAdd: source must be float32 [2,2]"),
              std::string::npos)
        << r.status();
  }
  Tensor r = ops::IndexAdd(x, 0, Make<int64_t>({0, 3}, {2}), Zeros({2, 2}, DType::kFloat32));
  ASSERT_TRUE(r.ok());
  absl::Status s = r.Wait();
  EXPECT_NE(s.message().find("index[1] = 3 is out of range (valid: [0, 3))"), std::string::npos)
      << s;
  (void)Sync();
  EXPECT_FALSE(
      ops::IndexAdd(Make<bool>({true}, {1}), 0, Make<int64_t>({0}, {1}), Make<bool>({true}, {1}))
          .ok());  // not numeric
}

TEST(IndexOps, OutOfRangeIndexPoisonsTheOutputNamingIt) {
  Tensor w = Make<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  for (int64_t bad : {int64_t{3}, int64_t{-1}, std::numeric_limits<int64_t>::min()}) {
    Tensor e = ops::IndexSelect(w, 0, Make<int64_t>({0, 2, bad}, {3}));
    ASSERT_TRUE(e.ok());
    absl::Status s = e.Wait();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("IndexSelect: index[2] = " + std::to_string(bad) +
                               " is out of range (valid: [0, 3))"),
              std::string::npos)
        << s;
    Tensor h = ops::OneHot(Make<int64_t>({bad, 0}, {2}), 3);
    s = h.Wait();
    EXPECT_NE(s.message().find("OneHot: index[0] = " + std::to_string(bad) +
                               " is out of range (valid: [0, 3))"),
              std::string::npos)
        << s;
    (void)Sync();
  }
  EXPECT_TRUE(Sync().ok());
}

TEST(NnIndexErrors, RejectedOnTheCallingThread) {
  Tensor f23 = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor f3 = Full({3}, 1.0f, DType::kFloat32);
  Tensor f2 = Full({2}, 1.0f, DType::kFloat32);
  Tensor d3 = Full({3}, 1.0, DType::kFloat64);
  Tensor i23 = Full({2, 3}, 1, DType::kInt32);
  Tensor i2 = Full({2}, 1, DType::kInt32);
  Tensor l2 = Full({2}, int64_t{0}, DType::kInt64);
  Tensor b3 = Full({3}, true, DType::kBool);
  Tensor f03 = Zeros({0, 3}, DType::kFloat32);
  Tensor s = Full({}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  QueueProbe probe;
  const std::pair<Tensor, const char*> cases[] = {
      {ops::Gelu(i23), "Gelu: needs a floating-point tensor, got int32 [2,3]"},
      {ops::LayerNorm(f23, f2, f3),
       "LayerNorm: argument 'weight' must be float32 [3] (the last "
       "axis of x [2,3]), got float32 [2]"},
      {ops::LayerNorm(f23, f3, d3), "LayerNorm: argument 'bias' must be float32 [3]"},
      {ops::LayerNorm(f23, f3, f3, -1), "LayerNorm: eps must be finite and >= 0, got -1"},
      {ops::LayerNorm(s, f3, f3), "LayerNorm: argument 'x' is a scalar"},
      {ops::Argmax(f23, 2), "Argmax: axis 2 is out of range for [2,3]"},
      {ops::Argmin(f03, 0), "Argmin: axis 0 of [0,3] has size 0"},
      {ops::Argmax(b3, 0), "Argmax: not defined for bool tensors"},
      {ops::OneHot(i2, 3), "OneHot: argument 'index' must be int64, got int32 [2]"},
      {ops::OneHot(l2, -1), "OneHot: classes must be >= 0, got -1"},
      {ops::IndexSelect(f23, 0, i2), "IndexSelect: argument 'index' must be int64, got int32"},
      {ops::IndexSelect(f23, 2, l2), "IndexSelect: axis 2 is out of range for [2,3]"},
      {ops::IndexSelect(f03, 0, l2), "IndexSelect: axis 0 of x [0,3] has size 0"},
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
