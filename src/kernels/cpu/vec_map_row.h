// out[i] = f(x[i]) (MapRow), or f of up to three inputs (MapRows), over
// contiguous float32 rows, for an f given as an in-place function of vectors
// of lanes (`Fn::Lanes(V* x)`, `Fn::Lanes(V* x, const V& y, ...)`; V =
// vec::F4, F8 or F16,
// the same operations on every lane: vec_exp.h's rules), so every width
// gives the same bits: 16 lanes inside code built for AVX-512F where the CPU
// has it, else 8 inside code built for AVX2, else 4 (picked once at run
// time); the tail one element at a time through a 4-lane vector.
#ifndef EAGERVM_KERNELS_CPU_VEC_MAP_ROW_H_
#define EAGERVM_KERNELS_CPU_VEC_MAP_ROW_H_

#include <cstdint>
#include <cstring>

#include "kernels/cpu/vec_exp.h"

namespace eagervm::kernels::vec {

// The elements [i, n) with V lanes at a time, then the tail through F4.
// kIn inputs: in[0] is x, in[1], in[2] the further operands of f.
template <typename Fn, typename V, int kIn>
[[gnu::always_inline]] inline void MapRowOf(const float* const* in, float* out, int64_t n) {
  static_assert(kIn >= 1 && kIn <= 3);
  constexpr int64_t kWidth = sizeof(V) / sizeof(float);
  int64_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    V v[kIn];
    for (int a = 0; a < kIn; ++a) std::memcpy(&v[a], in[a] + i, sizeof(V));
    if constexpr (kIn == 1) Fn::Lanes(&v[0]);
    if constexpr (kIn == 2) Fn::Lanes(&v[0], v[1]);
    if constexpr (kIn == 3) Fn::Lanes(&v[0], v[1], v[2]);
    std::memcpy(out + i, &v[0], sizeof(V));
  }
  for (; i < n; ++i) {
    F4 v[kIn];
    for (int a = 0; a < kIn; ++a) v[a] = Splat(in[a][i]);
    if constexpr (kIn == 1) Fn::Lanes(&v[0]);
    if constexpr (kIn == 2) Fn::Lanes(&v[0], v[1]);
    if constexpr (kIn == 3) Fn::Lanes(&v[0], v[1], v[2]);
    out[i] = v[0][0];
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <typename Fn, int kIn>
__attribute__((target("avx2"), flatten)) void MapRowAvx2(const float* const* in, float* out,
                                                         int64_t n) {
  MapRowOf<Fn, F8, kIn>(in, out, n);
}
template <typename Fn, int kIn>
EAGERVM_AVX512_NO_FMA void MapRowAvx512(const float* const* in, float* out, int64_t n) {
  MapRowOf<Fn, F16, kIn>(in, out, n);
}
#endif

// out[i] = f(in[0][i], ..., in[kIn - 1][i]) for i in [0, n).
template <typename Fn, int kIn>
void MapRows(const float* const* in, float* out, int64_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx512) return MapRowAvx512<Fn, kIn>(in, out, n);
  if (avx2) return MapRowAvx2<Fn, kIn>(in, out, n);
#endif
  MapRowOf<Fn, F4, kIn>(in, out, n);
}

template <typename Fn>
void MapRow(const float* x, float* out, int64_t n) {
  const float* in[] = {x};
  MapRows<Fn, 1>(in, out, n);
}

}  // namespace eagervm::kernels::vec

#endif  // EAGERVM_KERNELS_CPU_VEC_MAP_ROW_H_
