// The contiguous float32 Softmax/LogSoftmax/CrossEntropy row kernels
// (kernels/cpu/softmax_rows.h): the AVX2 and AVX-512 builds give bitwise the
// same results as the baseline build on the same rows, for every row length
// (whole groups of 16 and every tail), random and edge values (a NaN result
// only has to be NaN on both). Each is skipped on a CPU without it.
#include "kernels/cpu/softmax_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace eagervm::kernels {
namespace {

using softmax_rows::Isa;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Rows of n floats: random logits at a few scales and offsets (exps near 1,
// underflowing, subnormal), with some rows salted with edge values.
std::vector<float> Logits(std::mt19937& rng, int64_t rows, int64_t n) {
  std::vector<float> v(static_cast<size_t>(rows * n));
  const float scales[] = {1.0f, 0.01f, 30.0f, 1e-7f};
  const float offsets[] = {0.0f, 1000.0f, -1000.0f, 5.0f};
  const float edges[] = {kInf, -kInf, kNaN, 0.0f, -0.0f, -3e38f, 3e38f, 1e-40f};
  for (int64_t r = 0; r < rows; ++r) {
    std::normal_distribution<float> normal(offsets[r % 4], scales[(r / 4) % 4]);
    for (int64_t k = 0; k < n; ++k) v[r * n + k] = normal(rng);
    // Rows 16.. get one edge value each at a random place.
    if (r >= 16) v[r * n + rng() % n] = edges[r % 8];
  }
  return v;
}

// The same bits, or both NaN: which NaN an operation with two NaN operands
// returns (sign, payload) follows the operand order the compiler chose, which
// may differ between the two builds.
bool SameBits(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}
bool SameBits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}
bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameBits(a[i], b[i])) return false;
  }
  return true;
}

// Every wide build the CPU supports against the baseline.
void ExpectSameBitsAsBaseline(Isa isa) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int64_t n :
       {1, 2, 3, 4, 5, 7, 8, 10, 13, 15, 16, 17, 23, 31, 32, 33, 47, 64, 100, 1000, 1024, 1031}) {
    const int64_t rows = 40;
    const std::vector<float> x = Logits(rng, rows, n);
    for (bool log : {false, true}) {
      std::vector<float> base(x.size()), wide(x.size());
      softmax_rows::Rows(Isa::kBaseline, log, x.data(), rows, n, base.data());
      softmax_rows::Rows(isa, log, x.data(), rows, n, wide.data());
      EXPECT_TRUE(SameBits(base, wide)) << (log ? "LogSoftmax" : "Softmax") << " n = " << n;
      // Not all NaN: the rows hold real results to compare.
      int finite = 0;
      for (float f : base) finite += std::isfinite(f) ? 1 : 0;
      EXPECT_GT(finite, static_cast<int>(x.size()) / 2) << n;
      ++checked;
    }
    // Stats row by row, and StatsRows (16 rows at a time where n < 16 under
    // AVX-512F: 40 rows, two whole blocks and a part) against them.
    std::vector<float> maxes(rows);
    std::vector<double> log_sums(rows);
    softmax_rows::StatsRows(isa, x.data(), rows, n, maxes.data(), log_sums.data());
    for (int64_t r = 0; r < rows; ++r) {
      float m0, m1;
      double s0, s1;
      softmax_rows::Stats(Isa::kBaseline, x.data() + r * n, n, &m0, &s0);
      softmax_rows::Stats(isa, x.data() + r * n, n, &m1, &s1);
      EXPECT_TRUE(SameBits(m0, m1)) << "max, n = " << n << " row " << r;
      EXPECT_TRUE(SameBits(s0, s1)) << "log-sum, n = " << n << " row " << r;
      EXPECT_TRUE(SameBits(m0, maxes[r])) << "StatsRows max, n = " << n << " row " << r;
      EXPECT_TRUE(SameBits(s0, log_sums[r])) << "StatsRows log-sum, n = " << n << " row " << r;
    }
  }
  EXPECT_EQ(checked, 44);
}

TEST(SoftmaxRows, Avx2AndBaselineGiveTheSameBits) {
  if (!softmax_rows::Supported(Isa::kAvx2)) GTEST_SKIP() << "no AVX2 on this CPU";
  if (!softmax_rows::Supported(Isa::kAvx512)) EXPECT_EQ(softmax_rows::Chosen(), Isa::kAvx2);
  ExpectSameBitsAsBaseline(Isa::kAvx2);
}

TEST(SoftmaxRows, Avx512AndBaselineGiveTheSameBits) {
  if (!softmax_rows::Supported(Isa::kAvx512)) GTEST_SKIP() << "no AVX-512F on this CPU";
  EXPECT_EQ(softmax_rows::Chosen(), Isa::kAvx512);
  ExpectSameBitsAsBaseline(Isa::kAvx512);
}

TEST(SoftmaxRows, SignedZeroMaximumIsTheSameWhereverItStands) {
  // -0 and +0 compare equal: the maximum must not depend on which the lane
  // order met first (LogSoftmax's sign of zero would).
  std::vector<float> a(24, -1.0f), b(24, -1.0f);
  a[0] = -0.0f;
  a[9] = 0.0f;
  b[0] = 0.0f;
  b[9] = -0.0f;
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!softmax_rows::Supported(isa)) continue;
    float ma, mb;
    double sa, sb;
    softmax_rows::Stats(isa, a.data(), 24, &ma, &sa);
    softmax_rows::Stats(isa, b.data(), 24, &mb, &sb);
    EXPECT_FALSE(std::signbit(ma));
    EXPECT_FALSE(std::signbit(mb));
    EXPECT_EQ(sa, sb);
  }
}

}  // namespace
}  // namespace eagervm::kernels
