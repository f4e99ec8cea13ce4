// MatMul with transposed operands (BLAS flags, no copies), SubInplace, Axpy,
// DivScalarInplace and the operator forms (s * a, s - a, a -= b, a *= s,
// a /= s), against host references, with their bad-input errors.
#include <gtest/gtest.h>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::BroadcastIndex;
using testing::Make;
using testing::QueueProbe;
using testing::RandomData;
using testing::Rng;
using testing::Values;

template <typename T>
class MatMulTransposedTest : public ::testing::Test {};
TYPED_TEST_SUITE(MatMulTransposedTest, testing::NumericTypes);

TYPED_TEST(MatMulTransposedTest, EveryFlagCombinationMatchesTheLoop) {
  using T = TypeParam;
  Rng rng(8);
  for (int iter = 0; iter < 24; ++iter) {
    const int64_t m = rng() % 7, k = rng() % 6, n = rng() % 5;
    const bool ta = iter & 1, tb = iter & 2;
    const Shape sa = ta ? Shape{k, m} : Shape{m, k};
    const Shape sb = tb ? Shape{n, k} : Shape{k, n};
    const auto da = RandomData<T>(rng, sa.numel()), db = RandomData<T>(rng, sb.numel());
    Tensor c = ops::MatMul(Make(da, sa), Make(db, sb), ta, tb);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_EQ(c.shape(), (Shape{m, n}));
    std::vector<T> want(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += static_cast<double>(ta ? da[p * m + i] : da[i * k + p]) *
                 static_cast<double>(tb ? db[j * k + p] : db[p * n + j]);
        }
        want[i * n + j] = static_cast<T>(acc);
      }
    }
    testing::ExpectNear(Values<T>(c), want,
                        "MatMul " + sa.ToString() + sb.ToString() + std::to_string(iter % 4));
  }
}

// One operand a vector (m == 1 or n == 1): the kernels call BLAS's gemv
// instead of gemm (kernels/cpu/gemv.h), with every transpose flag, and with
// k large enough that a wrong stride or transpose reads other elements.
TYPED_TEST(MatMulTransposedTest, VectorOperandsMatchTheLoop) {
  using T = TypeParam;
  Rng rng(9);
  const int64_t dims[][3] = {{37, 300, 1}, {1, 300, 29}, {1, 300, 1}, {5, 2, 1}, {1, 2, 5}};
  for (const auto& d : dims) {
    const int64_t m = d[0], k = d[1], n = d[2];
    for (int flags = 0; flags < 4; ++flags) {
      const bool ta = flags & 1, tb = flags & 2;
      const Shape sa = ta ? Shape{k, m} : Shape{m, k};
      const Shape sb = tb ? Shape{n, k} : Shape{k, n};
      const auto da = RandomData<T>(rng, sa.numel()), db = RandomData<T>(rng, sb.numel());
      Tensor c = ops::MatMul(Make(da, sa), Make(db, sb), ta, tb);
      ASSERT_TRUE(c.ok()) << c.status();
      std::vector<T> want(static_cast<size_t>(m * n));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p) {
            acc += static_cast<double>(ta ? da[p * m + i] : da[i * k + p]) *
                   static_cast<double>(tb ? db[j * k + p] : db[p * n + j]);
          }
          want[i * n + j] = static_cast<T>(acc);
        }
      }
      const std::string what = "MatMul " + sa.ToString() + sb.ToString() + std::to_string(flags);
      testing::ExpectNear(Values<T>(c), want, what, std::is_same_v<T, float> ? 1e-4 : 1e-12);
      if (!ta && !tb) {  // the plain MatMul op's kernel too
        testing::ExpectNear(Values<T>(ops::MatMul(Make(da, sa), Make(db, sb))), want, what,
                            std::is_same_v<T, float> ? 1e-4 : 1e-12);
      }
    }
  }
}

TEST(BatchMatMul, EachBatchEntryIsItsMatMul) {
  Rng rng(31);
  for (int iter = 0; iter < 8; ++iter) {
    const bool ta = iter & 1, tb = iter & 2;
    const int64_t batch = 1 + rng() % 3, m = 1 + rng() % 4, k = rng() % 4, n = 1 + rng() % 4;
    const Shape sa = ta ? Shape{batch, k, m} : Shape{batch, m, k};
    const Shape sb = tb ? Shape{batch, n, k} : Shape{batch, k, n};
    const auto da = RandomData<float>(rng, sa.numel()), db = RandomData<float>(rng, sb.numel());
    Tensor c = ops::BatchMatMul(Make(da, sa), Make(db, sb), ta, tb);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_EQ(c.shape(), (Shape{batch, m, n}));
    const auto got = Values<float>(c);
    for (int64_t i = 0; i < batch; ++i) {
      const std::vector<float> ai(da.begin() + i * m * k, da.begin() + (i + 1) * m * k);
      const std::vector<float> bi(db.begin() + i * k * n, db.begin() + (i + 1) * k * n);
      const auto want =
          Values<float>(ops::MatMul(Make(ai, {sa[1], sa[2]}), Make(bi, {sb[1], sb[2]}), ta, tb));
      const std::vector<float> gi(got.begin() + i * m * n, got.begin() + (i + 1) * m * n);
      testing::ExpectNear(gi, want, "BatchMatMul entry " + std::to_string(i));
    }
  }
  Tensor bad = ops::BatchMatMul(Full({2, 3, 4}, 1.0f, DType::kFloat32),
                                Full({3, 4, 5}, 1.0f, DType::kFloat32));
  EXPECT_NE(bad.status().message().find(
                "BatchMatMul: batch sizes differ: a [2,3,4] and b [3,4,5] (2 != 3)"),
            std::string::npos)
      << bad.status();
  bad = ops::BatchMatMul(Full({2, 3}, 1.0f, DType::kFloat32), Full({2, 3}, 1.0f, DType::kFloat32));
  EXPECT_NE(bad.status().message().find("BatchMatMul: expects 3-D tensors"), std::string::npos);
}

TEST(MatMulTransposed, ErrorsNameTheTransposedShapes) {
  Tensor a = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor b = Full({2, 4}, 1.0f, DType::kFloat32);
  EXPECT_TRUE(ops::MatMul(a, b, true, false).ok());
  Tensor bad = ops::MatMul(a, b, false, true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "MatMul: inner dimensions do not match: a [2,3] @ b [2,4].T (3 != 4)"),
            std::string::npos)
      << bad.status();
  EXPECT_FALSE(ops::MatMul(Full({3}, 1.0f, DType::kFloat32), b, true, true).ok());
}

template <typename T>
class InplaceArithTest : public ::testing::Test {};
TYPED_TEST_SUITE(InplaceArithTest, testing::NumericTypes);

TYPED_TEST(InplaceArithTest, SubInplaceAndAxpyBroadcastIntoSelf) {
  using T = TypeParam;
  Rng rng(12);
  for (int iter = 0; iter < 20; ++iter) {
    const Shape ss = testing::RandomShape(rng);
    const Shape so = testing::BroadcastPair(rng, ss).first;
    const auto ds = RandomData<T>(rng, ss.numel()), dother = RandomData<T>(rng, so.numel());
    Tensor self = Make(ds, ss), other = Make(dother, so);
    ASSERT_TRUE(ops::SubInplace(self, other).ok());
    ASSERT_TRUE(ops::Axpy(self, 3, other).ok());
    self -= other;
    ASSERT_TRUE(self.ok()) << self.status();
    std::vector<T> want = ds;
    for (int64_t i = 0; i < ss.numel(); ++i) {
      want[i] = static_cast<T>(want[i] + dother[BroadcastIndex(i, ss, so)]);  // -1 + 3 - 1
    }
    testing::ExpectNear(Values<T>(self), want, "Sub/Axpy " + ss.ToString() + so.ToString());
  }
}

TYPED_TEST(InplaceArithTest, OperatorForms) {
  using T = TypeParam;
  Tensor a = Make<T>({6, 8, 10}, {3});
  EXPECT_EQ(Values<T>(2 * a), (std::vector<T>{12, 16, 20}));
  EXPECT_EQ(Values<T>(1 + a), (std::vector<T>{7, 9, 11}));
  EXPECT_EQ(Values<T>(20 - a), (std::vector<T>{14, 12, 10}));
  EXPECT_EQ(Values<T>(40 / a), (std::vector<T>{static_cast<T>(40.0 / 6), 5, 4}));
  Tensor b = Make<T>({6, 8, 10}, {3});
  b *= 3;
  EXPECT_EQ(Values<T>(b), (std::vector<T>{18, 24, 30}));
  b /= 2;
  EXPECT_EQ(Values<T>(b), (std::vector<T>{9, 12, 15}));
  b -= a;
  EXPECT_EQ(Values<T>(b), (std::vector<T>{3, 4, 5}));
}

TEST(InplaceArith, FloatOperatorsWithFloatLiterals) {
  Tensor x = Make<float>({1, 2}, {2});
  EXPECT_EQ(Values<float>(2.0f * x), (std::vector<float>{2, 4}));
  Tensor y = Make<float>({1, 3}, {2});
  y /= 3.0;  // exact division, not multiplication by 1/3
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1.0f / 3.0f, 1.0f}));
}

TEST(InplaceArith, ErrorsOnTheCallingThread) {
  Tensor i3 = Full({3}, 4, DType::kInt32);
  Tensor f3 = Full({3}, 1.0f, DType::kFloat32);
  Tensor f23 = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor b3 = Full({3}, true, DType::kBool);
  ASSERT_TRUE(Sync().ok());
  QueueProbe probe;
  const std::pair<absl::Status, const char*> cases[] = {
      {ops::SubInplace(f3, f23),
       "SubInplace: cannot broadcast other [2,3] into self [3] (the result would be [2,3])"},
      {ops::SubInplace(f3, i3), "SubInplace: dtype mismatch float32 [3] vs int32 [3]"},
      {ops::Axpy(i3, 2.5, i3), "Axpy: scalar 2.5 is not exactly representable as int32"},
      {ops::Axpy(b3, 1, b3), "Axpy: not defined for bool tensors"},
      {ops::DivScalarInplace(i3, 0), "DivScalarInplace: integer division by zero (int32 [3] / 0)"},
      {(2.5 * i3).status(), "MulScalar: scalar 2.5 is not exactly representable as int32"},
      {(2.5 - i3).status(), "SubScalar: scalar 2.5 is not exactly representable as int32"},
      {(2.5 / i3).status(), "Div: scalar 2.5 is not exactly representable as int32"},
  };
  EXPECT_EQ(probe.Count(), 0u);
  for (const auto& [s, message] : cases) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(message), std::string::npos)
        << "got '" << s.message() << "', want '" << message << "'";
  }
  Tensor t = Full({3}, 4, DType::kInt32);
  t /= 0;
  EXPECT_FALSE(t.ok());  // the rejection stays visible on the tensor
  EXPECT_EQ(Values<int32_t>(0 / Full({1}, 1, DType::kInt32)), (std::vector<int32_t>{0}));
  EXPECT_FALSE((4 / Full({1}, 0, DType::kInt32)).Wait().ok());  // zero divisor: at sync
  (void)Sync();
}

}  // namespace
}  // namespace eagervm
