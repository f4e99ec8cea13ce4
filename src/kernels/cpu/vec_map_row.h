// out[i] = f(x[i]) over a contiguous float32 row, for an f given as an
// in-place function of a vector of lanes (`Fn::Lanes(V*)`, V = vec::F4 or
// vec::F8, the same operations on every lane: vec_exp.h's rules), so every
// width gives the same bits: 8 lanes inside code built for AVX2 where the
// CPU has it (picked once at run time), else 4; the tail one element at a
// time through a 4-lane vector.
#ifndef EAGERVM_KERNELS_CPU_VEC_MAP_ROW_H_
#define EAGERVM_KERNELS_CPU_VEC_MAP_ROW_H_

#include <cstdint>
#include <cstring>

#include "kernels/cpu/vec_exp.h"

namespace eagervm::kernels::vec {

template <typename Fn>
inline void MapTail(const float* x, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    F4 v = Splat(x[i]);
    Fn::Lanes(&v);
    out[i] = v[0];
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <typename Fn>
__attribute__((target("avx2"), flatten)) void MapRowAvx2(const float* x, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    F8 v;
    std::memcpy(&v, x + i, sizeof v);
    Fn::Lanes(&v);
    std::memcpy(out + i, &v, sizeof v);
  }
  MapTail<Fn>(x + i, out + i, n - i);
}
#endif

template <typename Fn>
void MapRow(const float* x, float* out, int64_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return MapRowAvx2<Fn>(x, out, n);
#endif
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    F4 v = Load(x + i);
    Fn::Lanes(&v);
    Store(out + i, v);
  }
  MapTail<Fn>(x + i, out + i, n - i);
}

}  // namespace eagervm::kernels::vec

#endif  // EAGERVM_KERNELS_CPU_VEC_MAP_ROW_H_
