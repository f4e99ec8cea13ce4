// Cast between every pair of dtypes, with the documented conversion rules.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::Values;

template <typename To, typename From>
void CheckCast(const std::vector<From>& in, const std::vector<To>& want) {
  Tensor x = Make(in, {static_cast<int64_t>(in.size())});
  Tensor y = ops::Cast(x, DTypeOf<To>());
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y.dtype(), DTypeOf<To>());
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(Values<To>(y), want) << ToString(DTypeOf<From>()) << " -> " << ToString(DTypeOf<To>());
}

// Small integers survive every cast; bool becomes 0/1 and back x != 0.
template <typename From>
void CheckFromSmallValues() {
  const std::vector<From> in = {From(0), From(1), From(5), From(-3), From(0)};
  auto as = [&](auto zero) {
    using To = decltype(zero);
    std::vector<To> out;
    for (From v : in) out.push_back(static_cast<To>(v));
    return out;
  };
  CheckCast<int32_t>(in, as(int32_t{}));
  CheckCast<int64_t>(in, as(int64_t{}));
  CheckCast<float>(in, as(float{}));
  CheckCast<double>(in, as(double{}));
  CheckCast<bool>(in, std::vector<bool>{false, true, true, true, false});
}

TEST(Cast, EveryPairOnSmallValues) {
  CheckFromSmallValues<int32_t>();
  CheckFromSmallValues<int64_t>();
  CheckFromSmallValues<float>();
  CheckFromSmallValues<double>();
  const std::vector<bool> b = {true, false, true};
  CheckCast<bool>(b, b);
  CheckCast<int32_t>(b, std::vector<int32_t>{1, 0, 1});
  CheckCast<int64_t>(b, std::vector<int64_t>{1, 0, 1});
  CheckCast<float>(b, std::vector<float>{1, 0, 1});
  CheckCast<double>(b, std::vector<double>{1, 0, 1});
}

TEST(Cast, FloatToIntTruncatesSaturatesAndMapsNanToZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  CheckCast<int32_t>(std::vector<float>{2.9f, -2.9f, nan, inf, -inf, 3e9f, -3e9f},
                     std::vector<int32_t>{2, -2, 0, hi, lo, hi, lo});
  CheckCast<int64_t>(std::vector<double>{1e30, -1e30, -0.5},
                     std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                          std::numeric_limits<int64_t>::min(), 0});
  CheckCast<bool>(std::vector<float>{nan, -0.0f, 0.25f}, std::vector<bool>{true, false, true});
}

TEST(Cast, SameDtypeIsACopyNotAnAlias) {
  Tensor x = Make<float>({1, 2}, {2});
  Tensor y = ops::Cast(x, DType::kFloat32);
  ASSERT_TRUE(ops::FillInplace(y, 7.0f).ok());
  EXPECT_EQ(Values<float>(x), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{7, 7}));
}

TEST(Cast, EmptyAndScalarShapes) {
  EXPECT_EQ(ops::Cast(Zeros({0, 4}, DType::kInt32), DType::kFloat64).shape(), (Shape{0, 4}));
  EXPECT_EQ(*ops::Cast(Full({}, 3.75, DType::kFloat64), DType::kInt64).Item<int64_t>(), 3);
}

}  // namespace
}  // namespace eagervm
