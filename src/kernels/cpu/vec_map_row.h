// out[i] = f(x[i]) (MapRow) or f(x[i], y[i]) (MapRow2) over contiguous
// float32 rows, for an f given as an in-place function of vectors of lanes
// (`Fn::Lanes(V* x)`, `Fn::Lanes(V* x, const V& y)`; V = vec::F4, F8 or F16,
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
// kTwo: f of x and y, else of x alone (y unused).
template <typename Fn, typename V, bool kTwo>
[[gnu::always_inline]] inline void MapRowOf(const float* x, const float* y, float* out, int64_t n) {
  constexpr int64_t kWidth = sizeof(V) / sizeof(float);
  int64_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    V v;
    std::memcpy(&v, x + i, sizeof v);
    if constexpr (kTwo) {
      V w;
      std::memcpy(&w, y + i, sizeof w);
      Fn::Lanes(&v, w);
    } else {
      Fn::Lanes(&v);
    }
    std::memcpy(out + i, &v, sizeof v);
  }
  for (; i < n; ++i) {
    F4 v = Splat(x[i]);
    if constexpr (kTwo) {
      Fn::Lanes(&v, Splat(y[i]));
    } else {
      Fn::Lanes(&v);
    }
    out[i] = v[0];
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <typename Fn, bool kTwo>
__attribute__((target("avx2"), flatten)) void MapRowAvx2(const float* x, const float* y, float* out,
                                                         int64_t n) {
  MapRowOf<Fn, F8, kTwo>(x, y, out, n);
}
template <typename Fn, bool kTwo>
EAGERVM_AVX512_NO_FMA void MapRowAvx512(const float* x, const float* y, float* out, int64_t n) {
  MapRowOf<Fn, F16, kTwo>(x, y, out, n);
}
#endif

template <typename Fn, bool kTwo>
void MapRows(const float* x, const float* y, float* out, int64_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx512) return MapRowAvx512<Fn, kTwo>(x, y, out, n);
  if (avx2) return MapRowAvx2<Fn, kTwo>(x, y, out, n);
#endif
  MapRowOf<Fn, F4, kTwo>(x, y, out, n);
}

template <typename Fn>
void MapRow(const float* x, float* out, int64_t n) {
  MapRows<Fn, false>(x, nullptr, out, n);
}
template <typename Fn>
void MapRow2(const float* x, const float* y, float* out, int64_t n) {
  MapRows<Fn, true>(x, y, out, n);
}

}  // namespace eagervm::kernels::vec

#endif  // EAGERVM_KERNELS_CPU_VEC_MAP_ROW_H_
