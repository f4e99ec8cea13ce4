// The standard normal CDF, Phi(x) = 0.5 erfc(-x / sqrt 2), over 4, 8 or 16
// float32 lanes at a time, for Gelu's erf form (Gelu(x) = x Phi(x)). Built
// on vec_exp.h, with its rules: vector extensions, no branches, no calls, no
// fused multiply-add, so every width gives the same bits for the same input.
//
// Method, with z = x / sqrt 2 and a = |z|:
// - a < 1: Phi = 0.5 + 0.5 z P(z^2), P fitting erf(z) / z (degree 6, least
//   squares at Chebyshev nodes in float64);
// - a >= 1: e = 0.5 exp(-z^2) Q(1 / a), Q fitting exp(a^2) erfc(a) on
//   [1, 10] (degree 10), so e = 0.5 erfc(a); Phi = e for x < 0 and 1 - e for
//   x > 0. The negative side is computed, not cancelled from 1 + erf(z), so
//   it keeps its relative precision down to where exp underflows.
// Error (tests/vec_normal_cdf_test.cc): within 4e-7 relative for x >= -5.6
// (z^2 rounds in float32, which exp magnifies for larger |x|: within 1e-5
// relative down to -13, where Phi is 1e-38). Phi(+inf) = 1, Phi(-inf) = 0,
// Phi(NaN) = NaN.
#ifndef EAGERVM_KERNELS_CPU_VEC_NORMAL_CDF_H_
#define EAGERVM_KERNELS_CPU_VEC_NORMAL_CDF_H_

#include "kernels/cpu/vec_exp.h"

#if defined(__clang__)
#pragma float_control(push)
#pragma clang fp contract(off)
#endif

namespace eagervm::kernels::vec {

// Phi of every lane of *xp, in place (a pointer, as ExpInPlace takes).
template <typename V>
inline void NormalCdfInPlace(V* xp) {
  const V zero = {};
  const V z = *xp * 0.70710678118654752f;
  const V a = z < zero ? zero - z : z;
  const V z2 = z * z;
  V p = zero + 7.9333503061632330e-05f;
  p = p * z2 + -8.0348048399336391e-04f;
  p = p * z2 + 5.1912137618959076e-03f;
  p = p * z2 + -2.6855397053152926e-02f;
  p = p * z2 + 1.1283625666121154e-01f;
  p = p * z2 + -3.7612629871732578e-01f;
  p = p * z2 + 1.1283791665915897e+00f;
  const V inner = (z * p) * 0.5f + 0.5f;
  // Lanes with a < 1 compute this too (1 / 0 = inf included), then are not picked.
  const V t = (zero + 1.0f) / a;
  V q = zero + -5.0197771702749749e-02f;
  q = q * t + 3.3866037563387713e-01f;
  q = q * t + -1.0117476891808197e+00f;
  q = q * t + 1.7403533419901411e+00f;
  q = q * t + -1.8423154611930592e+00f;
  q = q * t + 1.1131374631565851e+00f;
  q = q * t + -1.6603500179775271e-01f;
  q = q * t + -2.5603089818849289e-01f;
  q = q * t + -2.5707370953967357e-03f;
  q = q * t + 5.6433341303890983e-01f;
  q = q * t + -3.4609492389593451e-06f;
  V e = zero - z2;
  ExpInPlace(&e);
  e = (e * 0.5f) * q;
  const V outer = z > zero ? (zero + 1.0f) - e : e;
  *xp = a < 1.0f ? inner : outer;
}

// Phi of one float by the same method (for tests and the tail of a row).
inline float NormalCdf(float x) {
  F4 v = Splat(x);
  NormalCdfInPlace(&v);
  return v[0];
}

}  // namespace eagervm::kernels::vec

#if defined(__clang__)
#pragma float_control(pop)
#endif

#endif  // EAGERVM_KERNELS_CPU_VEC_NORMAL_CDF_H_
