// A float32 exp over 4, 8 or 16 lanes at a time, for the softmax kernels.
// Written with GCC/Clang vector extensions, so 4 lanes compile to SSE on
// x86-64 (and NEON on arm64) and to plain scalar code elsewhere, 8 lanes to
// AVX inside functions built for AVX2, 16 to AVX-512 inside ones built for
// AVX-512F; no branches, no calls, no fused multiply-add (the baseline and
// AVX2 targets have no FMA; on AVX-512F, which has, fusing is turned off), so
// every width and machine gives the same bits for the same input.
//
// Method: exp(x) = 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 in
// [-ln2/2, ln2/2] (ln 2 split in two parts so n ln 2 is exact), exp(r) by a
// degree-7 polynomial (Cephes' expf coefficients). 2^n is applied as two
// power-of-two factors so results in the subnormal range round once, like
// std::exp. Relative error within 2 ulp of the float64 exp over the whole
// range (tests/vec_exp_test.cc); exp(-inf) = 0, exp(+inf) = +inf,
// exp(NaN) = NaN, x < -103.98 gives 0, x > 88.73 gives +inf.
#ifndef EAGERVM_KERNELS_CPU_VEC_EXP_H_
#define EAGERVM_KERNELS_CPU_VEC_EXP_H_

#include <cstdint>
#include <cstring>

// No multiply-add is fused, whatever the target: GCC is told so on the
// AVX-512 functions that include this code (EAGERVM_AVX512_NO_FMA below),
// Clang here.
#if defined(__clang__)
#pragma float_control(push)
#pragma clang fp contract(off)
#endif

// A function built for AVX-512F, whose FMA no multiply-add may use (the
// baseline has none, or the bits would differ): GCC is told on the function,
// Clang by the pragma above.
#if defined(__clang__)
#define EAGERVM_AVX512_NO_FMA __attribute__((target("avx512f"), flatten))
#else
#define EAGERVM_AVX512_NO_FMA \
  __attribute__((target("avx512f"), optimize("fp-contract=off"), flatten))
#endif

namespace eagervm::kernels::vec {

constexpr int kLanes = 4;
typedef float F4 __attribute__((vector_size(16)));
typedef double D2 __attribute__((vector_size(16)));
// 8 lanes: used only inside functions built for AVX2, 16 only inside ones
// built for AVX-512 (softmax_kernels.cc).
typedef float F8 __attribute__((vector_size(32)));
typedef float F16 __attribute__((vector_size(64)));

inline F4 Splat(float v) { return F4{v, v, v, v}; }

inline F4 Load(const float* p) {
  F4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void Store(float* p, F4 v) { std::memcpy(p, &v, sizeof v); }

// The first n < kLanes elements of p, the other lanes `fill`.
inline F4 LoadPartial(const float* p, int64_t n, float fill) {
  float buf[kLanes];
  for (int i = 0; i < kLanes; ++i) buf[i] = i < n ? p[i] : fill;
  return Load(buf);
}
inline void StorePartial(float* p, F4 v, int64_t n) {
  float buf[kLanes];
  Store(buf, v);
  for (int64_t i = 0; i < n; ++i) p[i] = buf[i];
}

// The integer vectors of a float vector type's width.
template <typename V>
struct LaneInts;
template <>
struct LaneInts<F4> {
  typedef int32_t I __attribute__((vector_size(16)));
  typedef uint32_t U __attribute__((vector_size(16)));
};
template <>
struct LaneInts<F8> {
  typedef int32_t I __attribute__((vector_size(32)));
  typedef uint32_t U __attribute__((vector_size(32)));
};
template <>
struct LaneInts<F16> {
  typedef int32_t I __attribute__((vector_size(64)));
  typedef uint32_t U __attribute__((vector_size(64)));
};

// exp of every lane of *xp, in place. The same operations in the same order
// on every lane whatever the width, so F4 and F8 give the same bits per lane.
// Takes a pointer: an 8-lane vector is only ever a local of AVX2 code (by
// value it would cross the baseline ABI), and this inlines into its caller.
template <typename V>
inline void ExpInPlace(V* xp) {
  using I = typename LaneInts<V>::I;
  using U = typename LaneInts<V>::U;
  const V zero = {};
  V x = *xp;
  // Below -104 every result rounds to 0, above 89 to +inf; NaN passes both
  // comparisons unchanged and stays NaN through the arithmetic.
  x = x < zero - 104.0f ? zero - 104.0f : x;
  x = x > zero + 89.0f ? zero + 89.0f : x;
  // Round x / ln 2 to the nearest integer by adding 1.5 * 2^23: the sum's low
  // mantissa bits hold n.
  const V magic = zero + 12582912.0f;
  const V t = x * 1.44269504088896341f + magic;
  const V n = t - magic;
  V r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  V p = zero + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  // n in [-150, 128] for non-NaN x: two factors 2^(n/2) within the normal
  // exponent range. Unsigned arithmetic: the NaN lanes' bits wrap harmlessly.
  U tb;
  std::memcpy(&tb, &t, sizeof tb);
  const I ni = (I)(tb - 0x4b400000u);
  const I n1 = ni >> 1;
  const I n2 = ni - n1;
  const U b1 = ((U)n1 + 127u) << 23;
  const U b2 = ((U)n2 + 127u) << 23;
  V s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  *xp = p * s1 * s2;
}

inline F4 Exp(F4 x) {
  ExpInPlace(&x);
  return x;
}

// The lanes of v as two double pairs added to lo and hi.
inline void AddWide(F4 v, D2* lo, D2* hi) {
  *lo += D2{v[0], v[1]};
  *hi += D2{v[2], v[3]};
}
inline float MaxLane(F4 v) {
  float m = v[0];
  for (int i = 1; i < kLanes; ++i) m = v[i] > m ? v[i] : m;
  return m;
}

// exp of one float by the same method (for tests and odd strides).
inline float Exp(float x) { return Exp(Splat(x))[0]; }

}  // namespace eagervm::kernels::vec

#if defined(__clang__)
#pragma float_control(pop)
#endif

#endif  // EAGERVM_KERNELS_CPU_VEC_EXP_H_
