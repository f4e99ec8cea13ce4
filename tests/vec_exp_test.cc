// The float32 exp of the CPU softmax kernels (kernels/cpu/vec_exp.h) against
// float64 std::exp: within 2 ulp over its whole range, subnormal results
// within one subnormal step of the rounded float64 value, and the edges
// (+-inf, NaN, 0, underflow to 0, overflow to +inf).
#include "kernels/cpu/vec_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace eagervm::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(VecExp, WithinTwoUlpOverTheNormalRange) {
  // ln(FLT_MIN) = -87.34, ln(FLT_MAX) = 88.72: about a million points.
  double worst = 0;
  float worst_x = 0;
  for (float x = -87.3f; x < 88.7f; x += 1.7e-4f) {
    const double want = std::exp(static_cast<double>(x));
    const double err = std::fabs(vec::Exp(x) - want) / want;
    if (err > worst) {
      worst = err;
      worst_x = x;
    }
  }
  EXPECT_LE(worst, 2 * 5.96e-8) << "at x = " << worst_x;
}

TEST(VecExp, EveryFloatNearZeroAndAtRangeReductionSteps) {
  // Near 0 (r tiny) and around k ln 2 / 2, where n changes.
  for (float x : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, 0.34657359f, 0.34657360f, -0.34657359f,
                  0.69314718f, -0.69314718f, 1.0f, -1.0f, 10.0f, -10.0f, 88.0f, -87.0f}) {
    const double want = std::exp(static_cast<double>(x));
    EXPECT_LE(std::fabs(vec::Exp(x) - want) / want, 2 * 5.96e-8) << x;
  }
  EXPECT_EQ(vec::Exp(0.0f), 1.0f);
}

TEST(VecExp, SubnormalResultsRoundOnce) {
  const float step = std::numeric_limits<float>::denorm_min();
  for (float x = -103.9f; x < -87.3f; x += 1e-3f) {
    const float want = static_cast<float>(std::exp(static_cast<double>(x)));
    EXPECT_LE(std::fabs(vec::Exp(x) - want), step) << x;
  }
}

TEST(VecExp, Edges) {
  EXPECT_EQ(vec::Exp(-kInf), 0.0f);
  EXPECT_EQ(vec::Exp(-104.0f), 0.0f);
  EXPECT_EQ(vec::Exp(-1000.0f), 0.0f);
  EXPECT_EQ(vec::Exp(-3.4e38f), 0.0f);
  EXPECT_EQ(vec::Exp(kInf), kInf);
  EXPECT_EQ(vec::Exp(88.8f), kInf);
  EXPECT_EQ(vec::Exp(1000.0f), kInf);
  EXPECT_GT(vec::Exp(88.72f), 3.3e38f);
  EXPECT_TRUE(std::isnan(vec::Exp(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(vec::Exp(-std::numeric_limits<float>::quiet_NaN())));
  // Lanes are independent: one NaN or inf lane leaves the others exact.
  const vec::F4 v = vec::Exp(vec::F4{std::numeric_limits<float>::quiet_NaN(), -kInf, 1.0f, kInf});
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_EQ(v[2], vec::Exp(1.0f));
  EXPECT_EQ(v[3], kInf);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// exp of 8 floats at once, in AVX2 code.
__attribute__((target("avx2"), flatten)) void Exp8(const float* x, float* out) {
  vec::F8 v;
  std::memcpy(&v, x, sizeof v);
  vec::ExpInPlace(&v);
  std::memcpy(out, &v, sizeof v);
}

TEST(VecExp, EightLanesGiveTheSameBitsAsFour) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 on this CPU";
  // Every 64th float bit pattern of both signs (about 134 million / 64: all
  // exponents, NaNs and infinities included), 8 at a time.
  float in[8], want[8], got[8];
  int64_t mismatches = 0, compared = 0;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 64 * 8) {
    for (int i = 0; i < 8; ++i) {
      const uint32_t b = static_cast<uint32_t>(bits + 64 * i + (bits >> 13) % 64);
      std::memcpy(&in[i], &b, sizeof b);
    }
    for (int h = 0; h < 2; ++h) {
      vec::F4 v = vec::Load(in + 4 * h);
      vec::Store(want + 4 * h, vec::Exp(v));
    }
    Exp8(in, got);
    for (int i = 0; i < 8; ++i) {
      // Any NaN for a NaN: which one an operation on two NaNs returns
      // follows the compiler's operand order.
      const bool same = (std::isnan(want[i]) && std::isnan(got[i])) ||
                        std::memcmp(&want[i], &got[i], sizeof want[i]) == 0;
      mismatches += same ? 0 : 1;
    }
    ++compared;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(compared, 8'000'000);
}
#endif

}  // namespace
}  // namespace eagervm::kernels
