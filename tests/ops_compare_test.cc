// Comparisons (Eq Ne Lt Le Gt Ge), Where, Minimum, Abs and Pow against a host
// reference on random broadcasting shapes, their edge values, and their
// bad-input errors (rejected on the calling thread, nothing queued).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::BroadcastIndex;
using testing::Make;
using testing::QueueProbe;
using testing::RandomData;
using testing::Rng;
using testing::Values;

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

const char* const kCmp[] = {"Eq", "Ne", "Lt", "Le", "Gt", "Ge"};

Tensor CallCmp(const std::string& op, const Tensor& a, const Tensor& b) {
  if (op == "Eq") return ops::Eq(a, b);
  if (op == "Ne") return ops::Ne(a, b);
  if (op == "Lt") return ops::Lt(a, b);
  if (op == "Le") return ops::Le(a, b);
  if (op == "Gt") return ops::Gt(a, b);
  return ops::Ge(a, b);
}

template <typename T>
bool RefCmp(const std::string& op, T a, T b) {
  if (op == "Eq") return a == b;
  if (op == "Ne") return a != b;
  if (op == "Lt") return a < b;
  if (op == "Le") return a <= b;
  if (op == "Gt") return a > b;
  return a >= b;
}

template <typename T>
class CompareTest : public ::testing::Test {};
TYPED_TEST_SUITE(CompareTest, testing::NumericTypes);

TYPED_TEST(CompareTest, RandomBroadcastShapes) {
  using T = TypeParam;
  Rng rng(11);
  for (int iter = 0; iter < 30; ++iter) {
    const Shape out = testing::RandomShape(rng);
    auto [sa, sb] = testing::BroadcastPair(rng, out);
    if (iter % 2) std::swap(sa, sb);
    auto da = RandomData<T>(rng, sa.numel());
    auto db = RandomData<T>(rng, sb.numel());
    // Small values so that equal pairs occur.
    for (auto& v : da) v = static_cast<T>(static_cast<int>(v) % 3);
    for (auto& v : db) v = static_cast<T>(static_cast<int>(v) % 3);
    const Shape so = BroadcastOf(sa, sb);
    Tensor a = Make(da, sa), b = Make(db, sb);
    for (const char* op : kCmp) {
      Tensor c = CallCmp(op, a, b);
      ASSERT_TRUE(c.ok()) << c.status();
      ASSERT_EQ(c.dtype(), DType::kBool);
      ASSERT_EQ(c.shape(), so);
      const auto got = Values<bool>(c);
      for (int64_t i = 0; i < so.numel(); ++i) {
        ASSERT_EQ(got[i],
                  RefCmp<T>(op, da[BroadcastIndex(i, so, sa)], db[BroadcastIndex(i, so, sb)]))
            << op << " " << sa << " " << sb << " at " << i;
      }
    }
    // Minimum and Where on the same shapes.
    std::vector<T> want(static_cast<size_t>(so.numel()));
    for (int64_t i = 0; i < so.numel(); ++i) {
      want[i] = std::min(da[BroadcastIndex(i, so, sa)], db[BroadcastIndex(i, so, sb)]);
    }
    testing::ExpectNear(Values<T>(ops::Minimum(a, b)), want, "Minimum " + sa.ToString());
    Tensor w = ops::Where(ops::Lt(a, b), a, b);
    testing::ExpectNear(Values<T>(w), want, "Where(a<b,a,b) " + sa.ToString());
  }
}

TEST(Compare, NanComparesUnequalAndMinimumPropagatesIt) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor a = Make<float>({nan, 1, nan}, {3});
  Tensor b = Make<float>({1, nan, nan}, {3});
  EXPECT_EQ(Values<bool>(ops::Eq(a, b)), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(Values<bool>(ops::Ne(a, b)), (std::vector<bool>{true, true, true}));
  EXPECT_EQ(Values<bool>(ops::Le(a, b)), (std::vector<bool>{false, false, false}));
  const auto m = Values<float>(ops::Minimum(a, b));
  for (float v : m) EXPECT_TRUE(std::isnan(v));
}

TEST(Compare, BoolInputsCompare) {
  Tensor a = Make<bool>({false, true, true}, {3});
  Tensor b = Make<bool>({true, true, false}, {3});
  EXPECT_EQ(Values<bool>(ops::Eq(a, b)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(Values<bool>(ops::Lt(a, b)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Values<bool>(ops::Where(a, b, a)), (std::vector<bool>{false, true, false}));
}

TEST(Where, BroadcastsAllThreeInputs) {
  Rng rng(5);
  for (int iter = 0; iter < 30; ++iter) {
    const Shape out = testing::RandomShape(rng);
    auto [sa, sb] = testing::BroadcastPair(rng, out);
    const Shape sc = testing::BroadcastPair(rng, out).first;
    const auto da = RandomData<double>(rng, sa.numel());
    const auto db = RandomData<double>(rng, sb.numel());
    std::vector<bool> dc(static_cast<size_t>(sc.numel()));
    for (size_t i = 0; i < dc.size(); ++i) dc[i] = (rng() & 1) != 0;
    Tensor w = ops::Where(Make<bool>(dc, sc), Make(da, sa), Make(db, sb));
    ASSERT_TRUE(w.ok()) << w.status();
    const Shape so = BroadcastOf(sc, BroadcastOf(sa, sb));
    ASSERT_EQ(w.shape(), so);
    std::vector<double> want(static_cast<size_t>(so.numel()));
    for (int64_t i = 0; i < so.numel(); ++i) {
      want[i] = dc[BroadcastIndex(i, so, sc)] ? da[BroadcastIndex(i, so, sa)]
                                              : db[BroadcastIndex(i, so, sb)];
    }
    testing::ExpectNear(Values<double>(w), want, "Where " + sc.ToString() + sa.ToString());
  }
  // Empty and scalar shapes.
  EXPECT_EQ(ops::Where(Full({0, 3}, true, DType::kBool), Full({}, 1, DType::kInt64),
                       Full({3}, 2, DType::kInt64))
                .shape(),
            (Shape{0, 3}));
}

TEST(Abs, IntegersWrapAndFloatsClearTheSign) {
  const int32_t lo = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Values<int32_t>(ops::Abs(Make<int32_t>({-3, 0, 4, lo}, {4}))),
            (std::vector<int32_t>{3, 0, 4, lo}));
  const float inf = std::numeric_limits<float>::infinity();
  const auto v = Values<float>(ops::Abs(Make<float>({-0.0f, -inf, 2.5f, -1e-30f}, {4})));
  EXPECT_EQ(v, (std::vector<float>{0.0f, inf, 2.5f, 1e-30f}));
  EXPECT_FALSE(std::signbit(v[0]));
}

TEST(Pow, MatchesStdPow) {
  Rng rng(9);
  auto d = RandomData<double>(rng, 50);
  for (double p : {2.0, 0.5, -1.0, 3.0, 0.0}) {
    std::vector<double> want;
    for (double x : d) want.push_back(std::pow(x, p));
    testing::ExpectNear(Values<double>(ops::Pow(Make(d, {5, 10}), p)), want,
                        "Pow " + std::to_string(p));
  }
  const auto f = Values<float>(ops::Pow(Make<float>({2, 3}, {2}), 3));
  EXPECT_EQ(f, (std::vector<float>{8, 27}));
}

TEST(CompareErrors, RejectedOnTheCallingThreadNamingOpAndShapes) {
  Tensor f23 = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor f4 = Full({4}, 1.0f, DType::kFloat32);
  Tensor i3 = Full({3}, 1, DType::kInt32);
  Tensor f3 = Full({3}, 1.0f, DType::kFloat32);
  Tensor b3 = Full({3}, true, DType::kBool);
  Tensor b4 = Full({4}, true, DType::kBool);
  ASSERT_TRUE(Sync().ok());
  struct Case {
    Tensor t;
    const char* message;
  };
  QueueProbe probe;
  const Case cases[] = {
      {ops::Lt(f23, f4), "Lt: cannot broadcast [2,3] with [4]"},
      {ops::Eq(f4, i3), "Eq: cannot broadcast [4] with [3]"},  // checked before promotion
      {ops::Minimum(b3, b3), "Minimum: not defined for bool tensors ([3])"},
      {ops::Minimum(f23, f4), "Minimum: cannot broadcast [2,3] with [4]"},
      {ops::Where(f3, f3, f3), "Where: argument 'cond' must be bool, got float32 [3]"},
      {ops::Where(b3, f4, i3), "Where: cannot broadcast [4] with [3]"},
      {ops::Where(b4, f3, i3), "Where: cannot broadcast [4] with [3]"},
      {ops::Where(b3, f23, f4), "Where: cannot broadcast [2,3] with [4]"},
      {ops::Where(b4, f23, f3), "Where: cannot broadcast [4] with [2,3]"},
      {ops::Where(Tensor(), f3, f3), "Where: argument 'cond' is an undefined tensor"},
      {ops::Abs(b3), "Abs: not defined for bool tensors"},
      {ops::Pow(i3, 2), "Pow: needs a floating-point tensor, got int32 [3]"},
      {ops::Gt(Tensor(), f3), "Gt: argument 'a' is an undefined tensor"},
  };
  EXPECT_EQ(probe.Count(), 0u);
  for (const Case& c : cases) {
    ASSERT_FALSE(c.t.ok()) << c.message;
    const bool undefined = std::string(c.message).find("undefined") != std::string::npos;
    EXPECT_EQ(c.t.status().code(), undefined ? absl::StatusCode::kFailedPrecondition
                                             : absl::StatusCode::kInvalidArgument)
        << c.t.status();
    EXPECT_NE(c.t.status().message().find(c.message), std::string::npos)
        << "got '" << c.t.status().message() << "', want '" << c.message << "'";
  }
}

}  // namespace
}  // namespace eagervm
