// Binary ops (Add Sub Mul Div Maximum, operators, AddInplace) against a host
// reference on random broadcasting shapes, for every numeric dtype.
#include <gtest/gtest.h>

#include <functional>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::BroadcastIndex;
using testing::Make;
using testing::RandomData;
using testing::Rng;
using testing::Values;

template <typename T>
T RefOp(const std::string& op, T a, T b) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  return (a > b || a != a) ? a : b;  // Maximum
}

Tensor CallOp(const std::string& op, const Tensor& a, const Tensor& b) {
  if (op == "Add") return ops::Add(a, b);
  if (op == "Sub") return ops::Sub(a, b);
  if (op == "Mul") return ops::Mul(a, b);
  if (op == "Div") return ops::Div(a, b);
  return ops::Maximum(a, b);
}

Shape BroadcastOf(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  Shape out;
  for (int d = 0; d < rank; ++d) {
    const int da = d - (rank - a.rank()), db = d - (rank - b.rank());
    const int64_t x = da < 0 ? 1 : a[da], y = db < 0 ? 1 : b[db];
    out.push_back(x == 1 ? y : x);
  }
  return out;
}

template <typename T>
void CheckBinary(const std::string& op, const Shape& sa, const Shape& sb, Rng& rng) {
  const auto da = RandomData<T>(rng, sa.numel());
  const auto db = RandomData<T>(rng, sb.numel(), /*nonzero=*/op == "Div");
  Tensor c = CallOp(op, Make(da, sa), Make(db, sb));
  ASSERT_TRUE(c.ok()) << c.status();
  const Shape out = BroadcastOf(sa, sb);
  ASSERT_EQ(c.shape(), out) << op << " " << sa << " " << sb;
  std::vector<T> want(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    want[i] = RefOp(op, da[BroadcastIndex(i, out, sa)], db[BroadcastIndex(i, out, sb)]);
  }
  testing::ExpectNear(Values<T>(c), want, op + " " + sa.ToString() + " " + sb.ToString());
}

template <typename T>
class BinaryOpsTest : public ::testing::Test {};
TYPED_TEST_SUITE(BinaryOpsTest, testing::NumericTypes);

const char* const kOps[] = {"Add", "Sub", "Mul", "Div", "Maximum"};

TYPED_TEST(BinaryOpsTest, RandomBroadcastShapes) {
  Rng rng(42);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape out = testing::RandomShape(rng);
    auto [sa, sb] = testing::BroadcastPair(rng, out);
    if (iter % 2) std::swap(sa, sb);
    for (const char* op : kOps) CheckBinary<TypeParam>(op, sa, sb, rng);
  }
}

TYPED_TEST(BinaryOpsTest, EdgeShapes) {
  Rng rng(7);
  const std::pair<Shape, Shape> cases[] = {{{}, {}},
                                           {{}, {2, 3}},
                                           {{2, 3}, {}},
                                           {{1}, {}},
                                           {{2, 3}, {2, 3}},
                                           {{2, 1}, {1, 3}},
                                           {{3}, {2, 3}},
                                           {{4, 1, 3}, {2, 1}},
                                           {{0}, {}},
                                           {{0, 3}, {1, 3}},
                                           {{2, 0}, {2, 1}},
                                           {{0}, {0}},
                                           {{1, 0}, {5, 1}},
                                           {{5, 1, 1}, {1, 1}},
                                           {{1, 1, 1}, {}},
                                           {{1000}, {1}},
                                           {{2, 1, 4, 1}, {3, 1, 5}}};
  for (const auto& [sa, sb] : cases) {
    for (const char* op : kOps) CheckBinary<TypeParam>(op, sa, sb, rng);
  }
}

TYPED_TEST(BinaryOpsTest, OperatorsMatchOps) {
  using T = TypeParam;
  Tensor a = Make<T>({6, 8, 10}, {3});
  Tensor b = Make<T>({1, 2, 5}, {3});
  EXPECT_EQ(Values<T>(a + b), (std::vector<T>{7, 10, 15}));
  EXPECT_EQ(Values<T>(a - b), (std::vector<T>{5, 6, 5}));
  EXPECT_EQ(Values<T>(a * b), (std::vector<T>{6, 16, 50}));
  EXPECT_EQ(Values<T>(a / b), (std::vector<T>{6, 4, 2}));
  EXPECT_EQ(Values<T>(-a), (std::vector<T>{-6, -8, -10}));
  EXPECT_EQ(Values<T>(a + 1), (std::vector<T>{7, 9, 11}));
  EXPECT_EQ(Values<T>(a - 1), (std::vector<T>{5, 7, 9}));
  EXPECT_EQ(Values<T>(a * 2), (std::vector<T>{12, 16, 20}));
  EXPECT_EQ(Values<T>(a / 2), (std::vector<T>{3, 4, 5}));
  EXPECT_EQ(Values<T>(ops::AddScalar(a, 2.0)), (std::vector<T>{8, 10, 12}));  // integral double
  EXPECT_EQ(Values<T>(ops::MulScalar(a, true)), (std::vector<T>{6, 8, 10}));
}

TYPED_TEST(BinaryOpsTest, AddInplaceBroadcastsOtherIntoSelf) {
  using T = TypeParam;
  Rng rng(3);
  for (int iter = 0; iter < 20; ++iter) {
    const Shape self_shape = testing::RandomShape(rng);
    const Shape other_shape = testing::BroadcastPair(rng, self_shape).first;
    const auto ds = RandomData<T>(rng, self_shape.numel());
    const auto dother = RandomData<T>(rng, other_shape.numel());
    Tensor self = Make(ds, self_shape);
    Tensor other = Make(dother, other_shape);
    ASSERT_TRUE(ops::AddInplace(self, other).ok());
    self += other;  // twice, the second through the operator
    ASSERT_TRUE(self.ok()) << self.status();
    std::vector<T> want = ds;
    for (int64_t i = 0; i < self_shape.numel(); ++i) {
      want[i] += static_cast<T>(2 * dother[BroadcastIndex(i, self_shape, other_shape)]);
    }
    testing::ExpectNear(Values<T>(self), want, "AddInplace " + self_shape.ToString());
  }
}

TEST(BinaryOps, IntegerArithmeticWraps) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  const int32_t small = std::numeric_limits<int32_t>::min();
  Tensor a = Make<int32_t>({big, small, small}, {3});
  Tensor b = Make<int32_t>({1, 1, -1}, {3});
  EXPECT_EQ(Values<int32_t>(a + b), (std::vector<int32_t>{small, small + 1, big}));
  EXPECT_EQ(Values<int32_t>(a / b), (std::vector<int32_t>{big, small, small}));  // min / -1 wraps
  EXPECT_EQ(Values<int32_t>(-a), (std::vector<int32_t>{-big, small, small}));
}

TEST(BinaryOps, IntegerDivisionTruncatesTowardZero) {
  Tensor a = Make<int64_t>({7, -7, 7, -7}, {4});
  Tensor b = Make<int64_t>({2, 2, -2, -2}, {4});
  EXPECT_EQ(Values<int64_t>(a / b), (std::vector<int64_t>{3, -3, -3, 3}));
}

TEST(BinaryOps, IntegerDivisionByZeroFailsAtSyncAndVmStaysUsable) {
  Tensor a = Make<int32_t>({1, 2, 3}, {3});
  Tensor b = Make<int32_t>({1, 0, 1}, {3});
  Tensor c = a / b;
  ASSERT_TRUE(c.ok());  // runtime errors never show in ok()
  absl::Status s = c.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Div: integer division by zero"), std::string::npos) << s;
  Tensor d = c + a;  // dependents forward the error
  EXPECT_FALSE(d.Wait().ok());
  (void)Sync();  // reports the first unreported error at most once
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(Values<int32_t>(a + a), (std::vector<int32_t>{2, 4, 6}));
}

TEST(BinaryOps, FloatDivisionByZeroIsIeee) {
  Tensor a = Make<float>({1, -1, 0}, {3});
  Tensor z = Make<float>({0, 0, 0}, {3});
  auto v = Values<float>(a / z);
  EXPECT_EQ(v[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[2]));
}

TEST(BinaryOps, MaximumPropagatesNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor a = Make<float>({nan, 1, 3}, {3});
  Tensor b = Make<float>({1, nan, 2}, {3});
  auto v = Values<float>(ops::Maximum(a, b));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 3);
}

TEST(BinaryOps, ScalarOpsOnIntTensorsConvertExactly) {
  Tensor a = Make<int32_t>({1, 2, 3}, {3});
  EXPECT_EQ(Values<int32_t>(ops::MulScalar(a, 3.0)), (std::vector<int32_t>{3, 6, 9}));
  EXPECT_EQ(Values<int32_t>(a / 2), (std::vector<int32_t>{0, 1, 1}));
  ASSERT_TRUE(ops::MulScalarInplace(a, -2).ok());
  EXPECT_EQ(Values<int32_t>(a), (std::vector<int32_t>{-2, -4, -6}));
}

}  // namespace
}  // namespace eagervm
