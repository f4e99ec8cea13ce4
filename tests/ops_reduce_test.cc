// Sum, Mean, Max over everything and along each axis (negative too, keepdim
// both ways) against a host reference, including empty dims and scalars.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::RandomData;
using testing::Rng;
using testing::Values;

enum class R { kSum, kMean, kMax };

// Reference along `axis` (-1: everything) computed in double / the exact type.
template <typename T>
std::vector<T> Reference(R r, const std::vector<T>& x, const Shape& s, int axis) {
  int64_t outer = 1, n = s.numel(), inner = 1;
  if (axis >= 0) {
    outer = inner = 1;
    for (int d = 0; d < s.rank(); ++d) {
      if (d < axis)
        outer *= s[d];
      else if (d > axis)
        inner *= s[d];
    }
    n = s[axis];
  }
  std::vector<T> out(static_cast<size_t>(outer * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      double acc = r == R::kMax ? -INFINITY : 0;
      for (int64_t k = 0; k < n; ++k) {
        const double v = static_cast<double>(x[(o * n + k) * inner + j]);
        acc = r == R::kMax ? std::max(acc, v) : acc + v;
      }
      if (r == R::kMean) acc /= static_cast<double>(n);
      out[o * inner + j] = static_cast<T>(acc);
    }
  }
  return out;
}

Tensor Call(R r, const Tensor& x) {
  return r == R::kSum ? ops::Sum(x) : r == R::kMean ? ops::Mean(x) : ops::Max(x);
}
Tensor Call(R r, const Tensor& x, int axis, bool keepdim) {
  return r == R::kSum    ? ops::Sum(x, axis, keepdim)
         : r == R::kMean ? ops::Mean(x, axis, keepdim)
                         : ops::Max(x, axis, keepdim);
}

template <typename T>
void CheckAllAxes(R r, const Shape& s, Rng& rng) {
  const auto x = RandomData<T>(rng, s.numel());
  Tensor t = Make(x, s);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  const std::string name = (r == R::kSum    ? "Sum "
                            : r == R::kMean ? "Mean "
                                            : "Max ") +
                           s.ToString();
  if (r != R::kMax || s.numel() > 0) {
    Tensor all = Call(r, t);
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_EQ(all.shape(), Shape{});
    testing::ExpectNear(Values<T>(all), Reference(r, x, s, -1), name, tol);
  }
  for (int axis = -s.rank(); axis < s.rank(); ++axis) {
    const int a = axis < 0 ? axis + s.rank() : axis;
    if (r == R::kMax && s[a] == 0) continue;
    for (bool keepdim : {false, true}) {
      Tensor y = Call(r, t, axis, keepdim);
      ASSERT_TRUE(y.ok()) << y.status();
      Shape want_shape;
      for (int d = 0; d < s.rank(); ++d) {
        if (d != a)
          want_shape.push_back(s[d]);
        else if (keepdim)
          want_shape.push_back(1);
      }
      ASSERT_EQ(y.shape(), want_shape) << name << " axis " << axis;
      testing::ExpectNear(Values<T>(y), Reference(r, x, s, a),
                          name + " axis " + std::to_string(axis), tol);
    }
  }
}

const Shape kShapes[] = {{},     {1},       {5},       {0},          {3, 4}, {4, 1},
                         {1, 6}, {2, 0, 3}, {2, 3, 4}, {3, 1, 2, 5}, {1000}, {3, 257}};

template <typename T>
class ReduceTest : public ::testing::Test {};
TYPED_TEST_SUITE(ReduceTest, testing::NumericTypes);

TYPED_TEST(ReduceTest, SumAndMax) {
  Rng rng(11);
  for (const Shape& s : kShapes) {
    CheckAllAxes<TypeParam>(R::kSum, s, rng);
    CheckAllAxes<TypeParam>(R::kMax, s, rng);
  }
  Rng rng2(12);
  for (int i = 0; i < 10; ++i) CheckAllAxes<TypeParam>(R::kSum, testing::RandomShape(rng2), rng2);
}

template <typename T>
class MeanTest : public ::testing::Test {};
TYPED_TEST_SUITE(MeanTest, testing::FloatTypes);

TYPED_TEST(MeanTest, Mean) {
  Rng rng(13);
  for (const Shape& s : kShapes) CheckAllAxes<TypeParam>(R::kMean, s, rng);
}

TEST(Reduce, EmptyReductions) {
  Tensor e = Zeros({0, 3}, DType::kFloat32);
  EXPECT_EQ(*ops::Sum(e).Item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(*ops::Mean(e).Item<float>()));
  EXPECT_EQ(Values<float>(ops::Sum(e, 0)), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(ops::Max(e, 1).shape(), Shape{0});
}

TEST(Reduce, Float32SumAccumulatesInDouble) {
  // 1e8 followed by 4000 ones: in a float accumulator each +1 is lost (the
  // spacing of floats near 1e8 is 8); 100004000 itself is a float.
  std::vector<float> x(4001, 1.0f);
  x[0] = 1e8f;
  Tensor t = Make(x, {4001});
  EXPECT_EQ(*ops::Sum(t).Item<float>(), 100004000.0f);
  // Along an axis with inner > 1 (the row-at-a-time path, a double scratch row).
  std::vector<float> x2(2 * 4001, 1.0f);
  x2[0] = x2[1] = 1e8f;
  EXPECT_EQ(Values<float>(ops::Sum(Make(x2, {4001, 2}), 0)),
            (std::vector<float>{100004000.0f, 100004000.0f}));
}

// Sums along a leading axis (a bias gradient: [batch, features] summed over
// the batch) add each column in double, row after row: bitwise the plain
// loop, whatever the kernel (blocks of 32 columns in registers where the CPU
// has AVX2, the columns left over one at a time), for Mean too; also with
// one column ([batch, 1], whose reduced axis is not the last) and in float64.
template <typename T>
void CheckColumnSums() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<T> u(-100, 100);
  for (const auto& [outer, n, inner] : std::vector<std::array<int64_t, 3>>{{1, 37, 77},
                                                                           {1, 256, 512},
                                                                           {3, 5, 70},
                                                                           {2, 1, 33},
                                                                           {1, 9, 31},
                                                                           {1, 300, 1},
                                                                           {3, 70, 1}}) {
    SCOPED_TRACE(::testing::Message() << outer << "x" << n << "x" << inner);
    std::vector<T> x(outer * n * inner);
    for (T& v : x) v = u(rng);
    Tensor t = FromVector<T>(x, {outer, n, inner});
    auto sum = ops::Sum(t, 1).ToVector<T>();
    auto mean = ops::Mean(t, 1).ToVector<T>();
    ASSERT_TRUE(sum.ok() && mean.ok());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        double s = x[o * n * inner + j];
        for (int64_t k = 1; k < n; ++k) s += x[(o * n + k) * inner + j];
        EXPECT_EQ((*sum)[o * inner + j], static_cast<T>(s)) << o << " " << j;
        EXPECT_EQ((*mean)[o * inner + j], static_cast<T>(s / static_cast<double>(n)));
      }
  }
}
TEST(Reduce, Float32ColumnSumsAreTheSequentialDoubleSum) { CheckColumnSums<float>(); }
TEST(Reduce, Float64ColumnSumsAreTheSequentialSum) { CheckColumnSums<double>(); }

TEST(Reduce, Int32SumWrapsLikeTheHardware) {
  Tensor x = Full({4}, std::numeric_limits<int32_t>::max(), DType::kInt32);
  const int32_t want = static_cast<int32_t>(4u * static_cast<uint32_t>(INT32_MAX));
  EXPECT_EQ(*ops::Sum(x).Item<int32_t>(), want);
}

}  // namespace
}  // namespace eagervm
