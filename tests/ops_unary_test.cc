// Unary ops against std:: on random data, including empty and scalar shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::RandomData;
using testing::Rng;
using testing::Values;

const Shape kShapes[] = {{}, {0}, {1}, {7}, {3, 0, 2}, {4, 5}, {2, 3, 4}, {1031}};

template <typename T>
class NumericUnaryTest : public ::testing::Test {};
TYPED_TEST_SUITE(NumericUnaryTest, testing::NumericTypes);

TYPED_TEST(NumericUnaryTest, ReluAndNeg) {
  using T = TypeParam;
  Rng rng(1);
  for (const Shape& s : kShapes) {
    const auto x = RandomData<T>(rng, s.numel());
    Tensor t = Make(x, s);
    std::vector<T> relu(x.size()), neg(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      relu[i] = x[i] < 0 ? T{0} : x[i];
      neg[i] = -x[i];
    }
    Tensor r = ops::Relu(t), n = ops::Neg(t);
    ASSERT_EQ(r.shape(), s);
    testing::ExpectNear(Values<T>(r), relu, "Relu " + s.ToString());
    testing::ExpectNear(Values<T>(n), neg, "Neg " + s.ToString());
  }
}

template <typename T>
class FloatUnaryTest : public ::testing::Test {};
TYPED_TEST_SUITE(FloatUnaryTest, testing::FloatTypes);

TYPED_TEST(FloatUnaryTest, Transcendental) {
  using T = TypeParam;
  Rng rng(2);
  struct Case {
    const char* name;
    Tensor (*op)(const Tensor&);
    double (*ref)(double);
    bool positive;  // domain of the reference
  };
  const Case cases[] = {
      {"Exp", ops::Exp, [](double x) { return std::exp(x); }, false},
      {"Log", ops::Log, [](double x) { return std::log(x); }, true},
      {"Sigmoid", ops::Sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }, false},
      {"Tanh", ops::Tanh, [](double x) { return std::tanh(x); }, false},
      {"Sqrt", ops::Sqrt, [](double x) { return std::sqrt(x); }, true},
  };
  for (const Case& c : cases) {
    for (const Shape& s : kShapes) {
      auto x = RandomData<T>(rng, s.numel());
      if (c.positive) {
        for (T& v : x) v = std::fabs(v) + T(0.01);
      }
      std::vector<T> want(x.size());
      for (size_t i = 0; i < x.size(); ++i) want[i] = static_cast<T>(c.ref(x[i]));
      Tensor y = c.op(Make(x, s));
      ASSERT_TRUE(y.ok()) << y.status();
      ASSERT_EQ(y.shape(), s);
      testing::ExpectNear(Values<T>(y), want, std::string(c.name) + " " + s.ToString(),
                          std::is_same_v<T, float> ? 1e-6 : 1e-14);
    }
  }
}

TEST(UnaryOps, IeeeEdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = Make<float>({-1, 0, -1000, 1000}, {4});
  auto log = Values<float>(ops::Log(x));
  EXPECT_TRUE(std::isnan(log[0]));
  EXPECT_EQ(log[1], -inf);
  auto sig = Values<float>(ops::Sigmoid(x));
  EXPECT_EQ(sig[2], 0.0f);  // e^1000 overflows to inf: exactly 0, not NaN
  EXPECT_EQ(sig[3], 1.0f);
  auto th = Values<float>(ops::Tanh(x));
  EXPECT_EQ(th[2], -1.0f);
  EXPECT_EQ(th[3], 1.0f);
  auto relu = Values<float>(ops::Relu(Make<float>({std::nanf("")}, {1})));
  EXPECT_TRUE(std::isnan(relu[0]));
}

// float32 Relu and Neg run 16 or 8 lanes at a time (vec_map_row.h): every
// special value (NaN, -0, +0, infinities, denormals) at every lane position
// and in the tail, bit for bit against the scalar definitions (Relu keeps
// NaN and -0; Neg is 0 - x, so -(+0) is +0).
TEST(UnaryOps, ReluAndNegFloatLanesMatchTheScalarDefinitionBitwise) {
  const float special[] = {std::nanf(""),
                           -0.0f,
                           0.0f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::denorm_min(),
                           -1e-40f,
                           -2.5f,
                           3.25f};
  for (int64_t n : {1, 7, 15, 16, 17, 31, 40}) {
    for (int64_t at = 0; at < n; ++at) {
      for (float v : special) {
        std::vector<float> x(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = (i % 3 == 0 ? -1.5f : 0.75f);
        x[static_cast<size_t>(at)] = v;
        std::vector<float> relu(x.size()), neg(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          relu[i] = x[i] < 0.0f ? 0.0f : x[i];
          neg[i] = 0.0f - x[i];
        }
        const Tensor t = Make(x, {n});
        const std::vector<float> got_relu = Values<float>(ops::Relu(t));
        const std::vector<float> got_neg = Values<float>(ops::Neg(t));
        ASSERT_EQ(got_relu.size(), x.size());
        ASSERT_EQ(got_neg.size(), x.size());
        EXPECT_EQ(std::memcmp(got_relu.data(), relu.data(), x.size() * 4), 0) << n << " " << at;
        EXPECT_EQ(std::memcmp(got_neg.data(), neg.data(), x.size() * 4), 0) << n << " " << at;
      }
    }
  }
}

TEST(UnaryOps, ChainOfOpsComposes) {
  // sigmoid(relu(x) * 2 - 1) through operators, checked end to end.
  Tensor x = Make<double>({-2, 0.5, 3}, {3});
  Tensor y = ops::Sigmoid(ops::Relu(x) * 2 - 1);
  auto v = Values<double>(y);
  const double ref[] = {-1, 0, 5};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(v[i], 1 / (1 + std::exp(-ref[i])), 1e-15);
}

}  // namespace
}  // namespace eagervm
