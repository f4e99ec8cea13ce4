// Creation ops: RandomNormal (deterministic per seed, independent of streams,
// roughly standard normal), Full/Zeros scalar rules, FromVector shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Values;

TEST(RandomNormal, SameSeedSameValuesOnAnyStream) {
  Tensor a = RandomNormal({3, 5}, DType::kFloat64, Device::Cpu(), 1234);
  Tensor b;
  {
    StreamScope scope(Stream(Device::Cpu(), 1));
    b = RandomNormal({3, 5}, DType::kFloat64, Device::Cpu(), 1234);
  }
  EXPECT_EQ(Values<double>(a), Values<double>(b));
  Tensor c = RandomNormal({3, 5}, DType::kFloat64, Device::Cpu(), 1235);
  EXPECT_NE(Values<double>(a), Values<double>(c));
}

TEST(RandomNormal, ElementDependsOnlyOnSeedAndIndex) {
  // A prefix of a longer draw equals a shorter draw; float32 is float64 rounded.
  auto long_draw = Values<double>(RandomNormal({101}, DType::kFloat64, Device::Cpu(), 9));
  auto short_draw = Values<double>(RandomNormal({2, 25}, DType::kFloat64, Device::Cpu(), 9));
  EXPECT_EQ(std::vector<double>(long_draw.begin(), long_draw.begin() + 50), short_draw);
  auto f = Values<float>(RandomNormal({101}, DType::kFloat32, Device::Cpu(), 9));
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i], static_cast<float>(long_draw[i]));
}

TEST(RandomNormal, MomentsAreStandardNormal) {
  const int64_t n = 200000;
  Tensor x = RandomNormal({n}, DType::kFloat64, Device::Cpu(), 7);
  const double mean = *ops::Mean(x).Item<double>();
  const double var = *ops::Mean(x * x).Item<double>() - mean * mean;
  // Standard errors: mean 1/sqrt(n) ~ 0.0022, variance sqrt(2/n) ~ 0.0032.
  EXPECT_NEAR(mean, 0.0, 0.012);
  EXPECT_NEAR(var, 1.0, 0.016);
  auto v = Values<double>(x);
  int64_t within_one = 0;
  for (double e : v) within_one += std::fabs(e) < 1.0;
  EXPECT_NEAR(static_cast<double>(within_one) / n, 0.6827, 0.01);
}

TEST(RandomNormal, EmptyAndScalar) {
  EXPECT_EQ(RandomNormal({0, 3}, DType::kFloat32, Device::Cpu(), 1).Wait(), absl::OkStatus());
  EXPECT_TRUE(std::isfinite(*RandomNormal({}, DType::kFloat32, Device::Cpu(), 1).Item<float>()));
}

TEST(RandomUniform, InRangeDeterministicAndUniform) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    Tensor a = ops::RandomUniform({20000}, dt, Device::Cpu(), 9, -2.0, 3.0);
    Tensor b = ops::RandomUniform({20000}, dt, Device::Cpu(), 9, -2.0, 3.0);
    Tensor c = ops::RandomUniform({20000}, dt, Device::Cpu(), 10, -2.0, 3.0);
    std::vector<double> va = Values<double>(ops::Cast(a, DType::kFloat64));
    EXPECT_EQ(va, Values<double>(ops::Cast(b, DType::kFloat64)));
    EXPECT_NE(va, Values<double>(ops::Cast(c, DType::kFloat64)));
    double sum = 0, lo = 1e9, hi = -1e9;
    int below_zero = 0;
    for (double v : va) {
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      below_zero += v < 0;
    }
    EXPECT_GE(lo, -2.0);
    EXPECT_LT(hi, 3.0);
    EXPECT_LT(lo, -1.99);  // the whole range is used
    EXPECT_GT(hi, 2.99);
    EXPECT_NEAR(sum / va.size(), 0.5, 0.05);                 // mean (lo + hi) / 2
    EXPECT_NEAR(below_zero / double(va.size()), 0.4, 0.02);  // P(v < 0) = 2/5
    // A prefix of a longer tensor is the shorter tensor (element i: (seed, i)).
    std::vector<double> pre = Values<double>(
        ops::Cast(ops::RandomUniform({7}, dt, Device::Cpu(), 9, -2.0, 3.0), DType::kFloat64));
    EXPECT_EQ(pre, std::vector<double>(va.begin(), va.begin() + 7));
  }
  // A range too narrow for float32 still never returns hi.
  std::vector<float> narrow =
      Values<float>(ops::RandomUniform({1000}, DType::kFloat32, Device::Cpu(), 1, 1.0, 1.0000001));
  for (float v : narrow) EXPECT_LT(v, 1.0000001f);
  for (float v : narrow) EXPECT_GE(v, 1.0f);
}

TEST(RandomUniform, RejectsBadArguments) {
  auto expect = [](const Tensor& t, const char* part) {
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(t.status().message().find(part), std::string::npos) << t.status();
    EXPECT_NE(t.status().message().find("RandomUniform"), std::string::npos) << t.status();
  };
  expect(ops::RandomUniform({3}, DType::kInt32, Device::Cpu(), 1), "int32");
  expect(ops::RandomUniform({3}, DType::kFloat32, Device::Cpu(), 1, 2.0, 1.0), "lo 2");
  expect(ops::RandomUniform({3}, DType::kFloat32, Device::Cpu(), 1, 0.0, INFINITY), "hi inf");
  expect(ops::RandomUniform({-1}, DType::kFloat32, Device::Cpu(), 1), "invalid shape");
}

TEST(Full, ValuesForEveryDtype) {
  EXPECT_EQ(Values<bool>(Full({2}, true, DType::kBool)), (std::vector<bool>{true, true}));
  EXPECT_EQ(Values<int32_t>(Full({2}, 3.0, DType::kInt32)), (std::vector<int32_t>{3, 3}));
  EXPECT_EQ(Values<int64_t>(Full({1}, int64_t{1} << 40, DType::kInt64)),
            (std::vector<int64_t>{int64_t{1} << 40}));
  EXPECT_EQ(Values<float>(Full({2, 0}, 1.5, DType::kFloat32)), std::vector<float>{});
  EXPECT_EQ(Values<double>(Zeros({3}, DType::kFloat64)), (std::vector<double>{0, 0, 0}));
}

}  // namespace
}  // namespace eagervm
