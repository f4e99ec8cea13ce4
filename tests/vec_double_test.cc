// kernels/cpu/vec_double.h: a row summed in 16 accumulators as 4-lane and as
// 8-lane double vectors gives the same bits (Total adds them in one order),
// which LayerNorm's and the softmax backward's kernels rely on to give the
// same results on every CPU.
#include "kernels/cpu/vec_double.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/vec_exp.h"  // EAGERVM_AVX512_NO_FMA

namespace eagervm::kernels {
namespace {

template <typename D>
[[gnu::always_inline]] inline double SumOf(const float* x, int64_t n) {
  D acc[vec::kAcc<D>] = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    for (int j = 0; j < vec::kAcc<D>; ++j) acc[j] += vec::LoadD<D>(x + k + vec::kW<D> * j);
  double s = vec::Total(acc);
  for (; k < n; ++k) s += static_cast<double>(x[k]);
  return s;
}

double Sum4(const float* x, int64_t n) { return SumOf<vec::D4>(x, n); }
#ifdef EAGERVM_VEC_DOUBLE_X86
EAGERVM_AVX512_NO_FMA double Sum8(const float* x, int64_t n) { return SumOf<vec::D8>(x, n); }
#endif

TEST(VecDouble, FourAndEightLanesGiveTheSameBits) {
#ifdef EAGERVM_VEC_DOUBLE_X86
  if (vec::ChosenIsa() != vec::Isa::kAvx512) GTEST_SKIP() << "no AVX-512F on this CPU";
  std::mt19937 rng(3);
  for (int64_t n : {0, 1, 15, 16, 17, 100, 1000}) {
    std::vector<float> x(static_cast<size_t>(n));
    // Magnitudes over 12 decades: the order of the adds shows in the bits.
    for (float& v : x)
      v = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng),
                     std::uniform_int_distribution<int>(-20, 20)(rng));
    const double a = Sum4(x.data(), n), b = Sum8(x.data(), n);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "n " << n << ": " << a << " vs " << b;
  }
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

}  // namespace
}  // namespace eagervm::kernels
