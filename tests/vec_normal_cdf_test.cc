// The float32 normal CDF of the CPU Gelu kernel (kernels/cpu/vec_normal_cdf.h)
// against float64 0.5 erfc(-x / sqrt 2): relative error bounds over the
// range, the negative tail kept (not cancelled from 1 + erf), the edges, and
// the same bits for a lane whatever the vector width.
#include "kernels/cpu/vec_normal_cdf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace eagervm::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

double Want(float x) { return 0.5 * std::erfc(-static_cast<double>(x) / std::sqrt(2.0)); }

// The worst relative error over [lo, hi) in steps of `step`.
double WorstRelative(float lo, float hi, float step) {
  double worst = 0;
  for (float x = lo; x < hi; x += step) {
    const double want = Want(x);
    worst = std::max(worst, std::fabs(vec::NormalCdf(x) - want) / want);
  }
  return worst;
}

TEST(VecNormalCdf, RelativeErrorBounds) {
  // Near 1 ulp where Phi is not small; growing with |x| on the far negative
  // side, where float32 z^2 is rounded before exp (Phi(-5.6) = 1e-8).
  EXPECT_LT(WorstRelative(-3.0f, 10.0f, 1e-4f), 1.2e-6);
  EXPECT_LT(WorstRelative(-5.6f, -3.0f, 1e-4f), 2.5e-6);
  EXPECT_LT(WorstRelative(-13.0f, -5.6f, 1e-3f), 2e-5);
}

TEST(VecNormalCdf, TheNegativeTailIsNotCancelled) {
  // 1 + erf(x / sqrt 2) in float32 is exactly 0 here; Phi is not.
  for (float x : {-6.0f, -8.0f, -10.0f, -12.0f}) {
    const float got = vec::NormalCdf(x);
    EXPECT_GT(got, 0.0f) << x;
    EXPECT_NEAR(got / Want(x), 1.0, 2e-5) << x;
  }
}

TEST(VecNormalCdf, Edges) {
  EXPECT_EQ(vec::NormalCdf(0.0f), 0.5f);
  EXPECT_EQ(vec::NormalCdf(kInf), 1.0f);
  EXPECT_EQ(vec::NormalCdf(-kInf), 0.0f);  // +-0
  EXPECT_TRUE(std::isnan(vec::NormalCdf(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(vec::NormalCdf(20.0f), 1.0f);
  EXPECT_EQ(vec::NormalCdf(-20.0f), 0.0f);  // exp underflows
  // No step at the switch between the two forms (|x| = sqrt 2): neighbours
  // agree within a few ulp.
  const float s = std::sqrt(2.0f);
  for (float x : {-s, s}) {
    const double below = vec::NormalCdf(std::nextafter(x, -kInf));
    const double above = vec::NormalCdf(std::nextafter(x, kInf));
    EXPECT_NEAR(below / above, 1.0, 1e-6) << x;
  }
}

TEST(VecNormalCdf, LanesGiveTheBitsOfOneFloat) {
  const float xs[4] = {-7.25f, -1.0f, 0.3f, 2.5f};
  vec::F4 v;
  std::memcpy(&v, xs, sizeof v);
  vec::NormalCdfInPlace(&v);
  for (int i = 0; i < 4; ++i) {
    const float one = vec::NormalCdf(xs[i]);
    EXPECT_EQ(std::memcmp(&v[i], &one, sizeof one), 0) << xs[i];
  }
}

}  // namespace
}  // namespace eagervm::kernels
