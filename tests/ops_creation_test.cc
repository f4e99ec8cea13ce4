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
