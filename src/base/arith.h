// Element arithmetic shared by the CPU and CUDA kernels (kernels/cpu/
// elementwise.h, kernels/cuda/device_util.cuh), compiled for both host and
// device (EAGERVM_HD). Integer arithmetic wraps (two's complement) rather
// than being undefined behaviour: results match what the hardware does, the
// CPU and CUDA kernels agree, and sanitizers stay quiet on random data.
// Header-only, C++17 (nvcc compiles it too); pure functions: any thread.
#ifndef EAGERVM_BASE_ARITH_H_
#define EAGERVM_BASE_ARITH_H_

#include <type_traits>

#if defined(__CUDACC__)
#define EAGERVM_HD __host__ __device__ __forceinline__
#else
#define EAGERVM_HD inline
#endif

namespace eagervm::base {

// Integer types other than bool (kernels are instantiated for every dtype,
// even where only some are registered, so bool must compile too).
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
EAGERVM_HD T WrapAdd(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
EAGERVM_HD T WrapSub(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
EAGERVM_HD T WrapMul(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;  // never registered; keeps -Wint-in-bool-context quiet
  } else {
    return a * b;
  }
}
// Integers: truncates toward zero; the caller rejects zero divisors first.
// min / -1 wraps to min instead of trapping.
template <typename T>
EAGERVM_HD T WrapDiv(T a, T b) {
  if constexpr (kIsInt<T> && static_cast<T>(-1) < T{0}) {  // signed: min / -1 wraps
    return b == T{-1} ? WrapSub(T{0}, a) : static_cast<T>(a / b);
  } else if constexpr (kIsInt<T>) {
    return static_cast<T>(a / b);
  } else {
    return a / b;
  }
}
// NaN-propagating, like numpy.maximum.
template <typename T>
EAGERVM_HD T MaxOf(T a, T b) {
  return (a > b || a != a) ? a : b;
}

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_ARITH_H_
