// Float32 or float64 data computed in double, 4 or 8 lanes at a time (GCC
// and Clang vector extensions: SSE2 pairs in baseline x86-64 code, AVX
// inside functions built for AVX2, AVX-512 inside ones built for AVX-512F),
// for the row kernels that keep double precision (LayerNorm, the softmax
// backward). Sums run 16 accumulators (element k of a block of 16 to
// accumulator k) added in one order whatever the width (Total), so every
// width gives the same bits.
#ifndef EAGERVM_KERNELS_CPU_VEC_DOUBLE_H_
#define EAGERVM_KERNELS_CPU_VEC_DOUBLE_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

// The vectors pass between always-inlined helpers only: no call crosses an
// ABI, which GCC's and Clang's -Wpsabi (about passing them by value without
// AVX) would be about. Left on for the rest of the including file, whose
// calls are the ones warned about (Clang warns at -O0 too).
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace eagervm::kernels::vec {

typedef double D4 __attribute__((vector_size(32)));
typedef double D8 __attribute__((vector_size(64)));
// The float vector of a double vector's width.
template <typename D>
struct FloatsOf;
template <>
struct FloatsOf<D4> {
  typedef float type __attribute__((vector_size(16)));
};
template <>
struct FloatsOf<D8> {
  typedef float type __attribute__((vector_size(32)));
};
template <typename D>
constexpr int64_t kW = static_cast<int64_t>(sizeof(D) / sizeof(double));
// The vectors that hold 16 accumulators.
template <typename D>
constexpr int kAcc = static_cast<int>(16 / kW<D>);

template <typename D, typename T>
[[gnu::always_inline]] inline D LoadD(const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    typename FloatsOf<D>::type f;
    std::memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, D);
  } else {
    D d;
    std::memcpy(&d, p, sizeof d);
    return d;
  }
}

template <typename T, typename D>
[[gnu::always_inline]] inline void StoreD(T* p, D v) {
  if constexpr (std::is_same_v<T, float>) {
    const auto f = __builtin_convertvector(v, typename FloatsOf<D>::type);
    std::memcpy(p, &f, sizeof f);
  } else {
    std::memcpy(p, &v, sizeof v);
  }
}

// The 16 accumulators added in one order at every width: as four 4-lane
// vectors q[j] (elements 4j..4j+3 of each block of 16), (q0 + q1) + (q2 +
// q3), then the lanes pairwise.
template <typename D>
[[gnu::always_inline]] inline double Total(const D* acc) {
  D4 q[4];
  if constexpr (kW<D> == 4) {
    for (int j = 0; j < 4; ++j) q[j] = acc[j];
  } else {
    for (int j = 0; j < 2; ++j) {
      q[2 * j] = __builtin_shufflevector(acc[j], acc[j], 0, 1, 2, 3);
      q[2 * j + 1] = __builtin_shufflevector(acc[j], acc[j], 4, 5, 6, 7);
    }
  }
  const D4 s = (q[0] + q[1]) + (q[2] + q[3]);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// The instruction set a kernel's double code runs: 4 lanes (baseline or
// AVX2) or 8 (AVX-512F), the widest the CPU has, picked once.
enum class Isa { kBaseline, kAvx2, kAvx512 };
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EAGERVM_VEC_DOUBLE_X86 1
#endif
inline Isa ChosenIsa() {
#ifdef EAGERVM_VEC_DOUBLE_X86
  static const Isa isa = __builtin_cpu_supports("avx512f") ? Isa::kAvx512
                         : __builtin_cpu_supports("avx2")  ? Isa::kAvx2
                                                           : Isa::kBaseline;
  return isa;
#else
  return Isa::kBaseline;
#endif
}

}  // namespace eagervm::kernels::vec

#endif  // EAGERVM_KERNELS_CPU_VEC_DOUBLE_H_
