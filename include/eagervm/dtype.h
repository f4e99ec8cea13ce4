// Element types. Constants and pure functions: any thread, never block.
#ifndef EAGERVM_DTYPE_H_
#define EAGERVM_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string_view>
#include <type_traits>

#include "eagervm/export.h"
#include "eagervm/half.h"

namespace eagervm {

// The values are stable (appended, never renumbered). Host element types:
// bool, uint8_t, int32_t, int64_t, Half, BFloat16, float, double (half.h).
enum class DType {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
  kUInt8 = 5,
  kFloat16 = 6,
  kBFloat16 = 7,
};
inline constexpr int kNumDTypes = 8;

template <typename T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, bool>) {
    return DType::kBool;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return DType::kInt32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return DType::kInt64;
  } else if constexpr (std::is_same_v<T, float>) {
    return DType::kFloat32;
  } else if constexpr (std::is_same_v<T, double>) {
    return DType::kFloat64;
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return DType::kUInt8;
  } else if constexpr (std::is_same_v<T, Half>) {
    return DType::kFloat16;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return DType::kBFloat16;
  } else {
    static_assert(sizeof(T) == 0, "eagervm: unsupported element type");
  }
}

constexpr size_t SizeOf(DType d) {
  switch (d) {
    case DType::kBool:
      return 1;
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
    case DType::kFloat32:
      return 4;
    case DType::kFloat64:
      return 8;
    case DType::kUInt8:
      return 1;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
  }
  return 0;
}

// float16, bfloat16, float32, float64.
constexpr bool IsFloating(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 ||
         d == DType::kBFloat16;
}
// float16 or bfloat16: stored in 16 bits, computed in float32 on the CPU.
constexpr bool IsHalfFloat(DType d) { return d == DType::kFloat16 || d == DType::kBFloat16; }

// Calls f(T{}) with the C++ type T of `d` (bool, uint8_t, int32_t, int64_t,
// Half, BFloat16, float, double) and returns what it returns: one dispatch from a runtime dtype to
// a template, e.g. VisitDType(d, [&](auto zero) { using T = decltype(zero); ... }).
// `d` must be one of the enumerators (a value cast from elsewhere is a bug:
// it is visited as double).
template <typename F>
constexpr decltype(auto) VisitDType(DType d, F&& f) {
  switch (d) {
    case DType::kBool:
      return f(bool{});
    case DType::kInt32:
      return f(int32_t{});
    case DType::kInt64:
      return f(int64_t{});
    case DType::kFloat32:
      return f(float{});
    case DType::kUInt8:
      return f(uint8_t{});
    case DType::kFloat16:
      return f(Half{});
    case DType::kBFloat16:
      return f(BFloat16{});
    case DType::kFloat64:
      break;
  }
  return f(double{});
}

EAGERVM_EXPORT std::string_view ToString(DType d);  // "float32", ...: a static string
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, DType d);

}  // namespace eagervm

#endif  // EAGERVM_DTYPE_H_
