// The float32 products with a narrow side (kernels/cpu/skinny_gemm.h)
// against a float64 reference: every narrow width 1..12, every pair of
// transpose flags, row counts around the 2-row and 32-row blocks and long
// sides around the 16-lane vectors and 32-column panels; nothing written past
// c; and the same product through ops::MatMul / MatMulTransposed (which take
// these kernels) within BLAS's tolerance. Skipped on a CPU without AVX-512F.
#include "kernels/cpu/skinny_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm::kernels {
namespace {

struct Case {
  int64_t m, n, k;
  bool ta, tb;
};

// c = op(a) @ op(b) in double; a, b stored as Run reads them.
std::vector<double> Reference(const std::vector<float>& a, const std::vector<float>& b, Case c) {
  const int64_t a1 = c.ta ? c.m : c.k, b1 = c.tb ? c.k : c.n;
  std::vector<double> out(static_cast<size_t>(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const double x = c.ta ? a[p * a1 + i] : a[i * a1 + p];
        const double y = c.tb ? b[j * b1 + p] : b[p * b1 + j];
        s += x * y;
      }
      out[i * c.n + j] = s;
    }
  return out;
}

// Runs one case; checks every element within float rounding of a k-term
// sum and the guard words after c untouched. Returns whether Run took it.
bool Check(Case c, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  const int64_t a0 = c.ta ? c.k : c.m, a1 = c.ta ? c.m : c.k;
  const int64_t b0 = c.tb ? c.n : c.k, b1 = c.tb ? c.k : c.n;
  std::vector<float> a(a0 * a1), b(b0 * b1);
  for (float& x : a) x = u(*rng);
  for (float& x : b) x = u(*rng);
  constexpr int64_t kGuard = 64;
  std::vector<float> out(c.m * c.n + kGuard, -123.0f);
  if (!skinny_gemm::Run(a.data(), b.data(), out.data(), c.ta, c.tb, a0, a1, b0, b1)) return false;
  const std::vector<double> ref = Reference(a, b, c);
  const double tol = 4e-7 * static_cast<double>(c.k) + 1e-6;  // |terms| <= 1
  for (int64_t i = 0; i < c.m * c.n; ++i) {
    EXPECT_NEAR(out[i], ref[i], tol) << "m=" << c.m << " n=" << c.n << " k=" << c.k
                                     << " ta=" << c.ta << " tb=" << c.tb << " at " << i;
  }
  for (int64_t g = 0; g < kGuard; ++g) EXPECT_EQ(out[c.m * c.n + g], -123.0f) << "wrote past c";
  return true;
}

TEST(SkinnyGemm, EveryNarrowWidthAndFlagAgainstFloat64) {
  if (!skinny_gemm::Supported()) GTEST_SKIP() << "no AVX-512F";
  std::mt19937 rng(7);
  int ran = 0;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t w = 1; w <= 12; ++w) {
        for (int64_t m : {16, 17, 33, 64}) {
          for (int64_t k : {32, 47, 64, 129}) ran += Check({m, w, k, ta, tb}, &rng);  // narrow n
          for (int64_t n : {64, 65, 95, 130}) ran += Check({m, n, w, ta, tb}, &rng);  // narrow k
        }
      }
  EXPECT_EQ(ran, 2 * 2 * 12 * 4 * 8);  // every case above is one Pays takes
}

TEST(SkinnyGemm, DeclinesWhereBlasIsFaster) {
  EXPECT_FALSE(skinny_gemm::Pays(256, 13, 512));  // n too wide
  EXPECT_FALSE(skinny_gemm::Pays(256, 10, 16));   // k too short for the n kernels
  EXPECT_FALSE(skinny_gemm::Pays(8, 10, 512));    // too few rows
  EXPECT_FALSE(skinny_gemm::Pays(256, 32, 10));   // n too short for the k kernel
  EXPECT_FALSE(skinny_gemm::Pays(512, 512, 512));
  std::vector<float> a(8 * 512, 1), b(512 * 10, 1), c(80, 5);
  EXPECT_FALSE(skinny_gemm::Run(a.data(), b.data(), c.data(), false, false, 8, 512, 512, 10));
  EXPECT_EQ(c[0], 5);  // nothing written
}

// A product whose packed copy of b would pass 1 MiB goes to BLAS (Run
// declines, writing nothing); the same shapes that pack nothing still run.
TEST(SkinnyGemm, DeclinesAPackedCopyOverOneMebibyte) {
  if (!skinny_gemm::Supported()) GTEST_SKIP() << "no AVX-512F";
  const int64_t m = 16, n = 10, k = 30000;  // b: 300k floats
  ASSERT_TRUE(skinny_gemm::Pays(m, n, k));
  std::vector<float> a(m * k, 1), b(k * n, 1), c(m * n, 5);
  EXPECT_FALSE(skinny_gemm::Run(a.data(), b.data(), c.data(), false, false, m, k, k, n));
  EXPECT_EQ(c[0], 5);
  // b stored [n, k] (transpose_b): its rows are already what the kernel reads.
  EXPECT_TRUE(skinny_gemm::Run(a.data(), b.data(), c.data(), false, true, m, k, n, k));
  EXPECT_EQ(c[0], static_cast<float>(k));
  // A narrow k of 12 with n = 30000: 32-column panels of 12 rows, 360k
  // floats; with k = 4, 120k floats, it runs.
  std::vector<float> a2(m * 12, 1), b2(12 * 30000, 1), c2(m * 30000, 5);
  EXPECT_FALSE(skinny_gemm::Run(a2.data(), b2.data(), c2.data(), false, false, m, 12, 12, 30000));
  EXPECT_EQ(c2[0], 5);
  EXPECT_TRUE(skinny_gemm::Run(a2.data(), b2.data(), c2.data(), false, false, m, 4, 4, 30000));
  EXPECT_EQ(c2[0], 4);
}

// The ops a classifier's output layer runs: forward, weight gradient, input
// gradient, each against the float64 loop.
TEST(SkinnyGemm, ThroughTheOps) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  auto random = [&](int64_t r, int64_t c) {
    std::vector<float> v(r * c);
    for (float& x : v) x = u(rng);
    return v;
  };
  const std::vector<float> h = random(256, 512), w = random(512, 10), g = random(256, 10);
  Tensor th = FromVector<float>(h, {256, 512}), tw = FromVector<float>(w, {512, 10});
  Tensor tg = FromVector<float>(g, {256, 10});
  struct Op {
    Tensor out;
    const std::vector<float>* a;
    const std::vector<float>* b;
    Case c;
  };
  const Op cases[] = {
      {ops::MatMul(th, tw), &h, &w, {256, 10, 512, false, false}},
      {ops::MatMul(th, tg, /*transpose_a=*/true, false), &h, &g, {512, 10, 256, true, false}},
      {ops::MatMul(tg, tw, false, /*transpose_b=*/true), &g, &w, {256, 512, 10, false, true}},
  };
  for (const Op& op : cases) {
    auto got = op.out.ToVector<float>();
    ASSERT_TRUE(got.ok()) << got.status();
    const std::vector<double> ref = Reference(*op.a, *op.b, op.c);
    ASSERT_EQ(got->size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i)
      ASSERT_NEAR((*got)[i], ref[i], 4e-7 * op.c.k + 1e-6) << "m=" << op.c.m << " at " << i;
  }
}

}  // namespace
}  // namespace eagervm::kernels
