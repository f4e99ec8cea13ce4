// MatMul against a naive triple loop (relative tolerance for BLAS, exact for
// integers) and Transpose, on random and degenerate shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::RandomData;
using testing::Rng;
using testing::Values;

template <typename T>
std::vector<T> NaiveMatMul(const std::vector<T>& a, const std::vector<T>& b, int64_t m, int64_t k,
                           int64_t n) {
  std::vector<T> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += static_cast<double>(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = static_cast<T>(acc);
    }
  }
  return c;
}

template <typename T>
class MatMulTest : public ::testing::Test {};
TYPED_TEST_SUITE(MatMulTest, testing::NumericTypes);

TYPED_TEST(MatMulTest, MatchesNaiveLoop) {
  using T = TypeParam;
  Rng rng(5);
  const int64_t dims[][3] = {{1, 1, 1}, {2, 3, 4}, {7, 1, 5},    {1, 9, 1},    {0, 3, 2},
                             {3, 0, 2}, {3, 2, 0}, {33, 17, 65}, {64, 64, 64}, {100, 3, 1}};
  std::vector<std::array<int64_t, 3>> all;
  for (auto& d : dims) all.push_back({d[0], d[1], d[2]});
  for (int i = 0; i < 10; ++i) {
    std::uniform_int_distribution<int64_t> u(1, 40);
    all.push_back({u(rng), u(rng), u(rng)});
  }
  for (auto [m, k, n] : all) {
    const auto a = RandomData<T>(rng, m * k), b = RandomData<T>(rng, k * n);
    Tensor c = ops::MatMul(Make(a, {m, k}), Make(b, {k, n}));
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_EQ(c.shape(), (Shape{m, n}));
    const std::string what =
        "MatMul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    testing::ExpectNear(Values<T>(c), NaiveMatMul(a, b, m, k, n), what,
                        std::is_same_v<T, float> ? 1e-5 : 1e-12);
  }
}

TYPED_TEST(MatMulTest, TransposeMatchesIndexSwap) {
  using T = TypeParam;
  Rng rng(6);
  const int64_t dims[][2] = {{1, 1}, {0, 3}, {3, 0}, {1, 7}, {7, 1}, {31, 33}, {64, 65}, {100, 3}};
  for (auto& d : dims) {
    const auto x = RandomData<T>(rng, d[0] * d[1]);
    Tensor t = ops::Transpose(Make(x, {d[0], d[1]}));
    ASSERT_EQ(t.shape(), (Shape{d[1], d[0]}));
    std::vector<T> want(x.size());
    for (int64_t i = 0; i < d[0]; ++i) {
      for (int64_t j = 0; j < d[1]; ++j) want[j * d[0] + i] = x[i * d[1] + j];
    }
    EXPECT_EQ(Values<T>(t), want);
  }
}

// BLAS (and cuBLAS) take int dimensions: >= 2^31 is rejected on the calling
// thread with the op and the shapes named, before anything is queued (Empty
// tensors: no memory is ever allocated). The check is the op's, the same for
// every device (the CUDA kernel would otherwise narrow to int).
TEST(MatMul, DimensionsOfTwoToThe31AreRejectedBeforeQueueing) {
  const int64_t big = int64_t{1} << 31;
  for (auto [a_shape, b_shape] :
       {std::pair<Shape, Shape>{{1, big}, {big, 1}}, std::pair<Shape, Shape>{{big, 2}, {2, 1}},
        std::pair<Shape, Shape>{{1, 2}, {2, big}}}) {
    Tensor a = Empty(a_shape, DType::kFloat32), b = Empty(b_shape, DType::kFloat32);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_TRUE(Sync().ok());
    const uint64_t received = VirtualMachine::Get().GetStats().received;
    Tensor c = ops::MatMul(a, b);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << c.status();
    EXPECT_NE(c.status().message().find("MatMul"), absl::string_view::npos) << c.status();
    EXPECT_NE(c.status().message().find(std::to_string(big)), absl::string_view::npos)
        << c.status();
    EXPECT_EQ(VirtualMachine::Get().GetStats().received, received) << "nothing queued";
  }
}

TEST(MatMul, TransposeOfBoolAndGradientIdentity) {
  Tensor b = Make<bool>({true, false, false, true, true, false}, {2, 3});
  EXPECT_EQ(Values<bool>(ops::Transpose(b)),
            (std::vector<bool>{true, true, false, true, false, false}));
  // (A B)^T == B^T A^T, all through the VM.
  Rng rng(8);
  Tensor a = Make(RandomData<double>(rng, 12), {3, 4});
  Tensor c = Make(RandomData<double>(rng, 20), {4, 5});
  auto lhs = Values<double>(ops::Transpose(ops::MatMul(a, c)));
  auto rhs = Values<double>(ops::MatMul(ops::Transpose(c), ops::Transpose(a)));
  testing::ExpectNear(lhs, rhs, "(AB)^T");
}

TEST(MatMul, LargeFloatWithinRelativeTolerance) {
  Rng rng(9);
  const int64_t m = 128, k = 300, n = 96;
  const auto a = RandomData<float>(rng, m * k), b = RandomData<float>(rng, k * n);
  auto got = Values<float>(ops::MatMul(Make(a, {m, k}), Make(b, {k, n})));
  auto want = NaiveMatMul(a, b, m, k, n);
  // Sums of 300 products of size ~9: float rounding is ~1e-6 relative to the
  // magnitude of the terms, not of the (possibly cancelling) result.
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-3) << i;
}

}  // namespace
}  // namespace eagervm
