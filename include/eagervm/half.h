// Host-side 16-bit floating-point element types: Half (IEEE 754 binary16,
// DType::kFloat16) and BFloat16 (the top half of a float32, DType::kBFloat16).
// Storage only: no arithmetic operators. Convert to float to compute and back
// to store (FromVector<Half>, ToVector<Half>, Item<Half> use them as elements).
// Conversions from float or double round to nearest, ties to even, overflow
// to +-inf, and keep NaN a NaN (of the same sign) and +-inf +-inf; the
// conversion to float is exact. Value types: any thread, never block.
#ifndef EAGERVM_HALF_H_
#define EAGERVM_HALF_H_

#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <type_traits>

#include "eagervm/export.h"

namespace eagervm {

namespace half_internal {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
inline uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

// binary16 from the bits of a binary64 (rounded once: no double rounding
// through float32).
inline uint16_t HalfFromDouble(double d) {
  const uint64_t u = DoubleBits(d);
  const uint16_t sign = static_cast<uint16_t>((u >> 48) & 0x8000u);
  const int exp = static_cast<int>((u >> 52) & 0x7ff);
  uint64_t mant = u & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7ff) {  // inf, or NaN (keep the top payload bits, force quiet)
    if (mant == 0) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | 0x7e00u | static_cast<uint16_t>(mant >> 42));
  }
  const int e = exp - 1023 + 15;  // the binary16 biased exponent
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp == 0) return sign;  // binary64 subnormals are far below binary16's
  mant |= uint64_t{1} << 52;  // the implicit bit
  // The binary16 result is mant >> shift (with its implicit bit at bit 10),
  // rounded to nearest even; a subnormal result shifts further.
  const int shift = e >= 1 ? 42 : 42 + (1 - e);
  if (shift > 53 + 1) return sign;  // below half the smallest subnormal
  uint64_t q = mant >> shift;
  const uint64_t rem = mant & ((uint64_t{1} << shift) - 1);
  const uint64_t halfway = uint64_t{1} << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) ++q;
  // q carries its implicit bit at bit 10 for normals; adding the exponent
  // field lets a mantissa overflow roll into the exponent (and into inf).
  if (e >= 1) return static_cast<uint16_t>(sign + ((static_cast<uint64_t>(e - 1) << 10) + q));
  return static_cast<uint16_t>(sign | q);  // subnormal (q may round up to the smallest normal)
}

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return BitsFloat(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp != 0) return BitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0) return BitsFloat(sign);
  // Subnormal: mant * 2^-24, exact in float.
  const float v = static_cast<float>(mant) * BitsFloat(0x33800000u);  // 2^-24
  return sign != 0 ? -v : v;
}

inline uint16_t BFloat16FromFloat(float f) {
  const uint32_t u = FloatBits(f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) != 0) {  // NaN: stays one, quiet
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  }
  const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);  // ties to even
  return static_cast<uint16_t>((u + rounding) >> 16);    // overflow rounds to inf
}

// bfloat16 from a double, rounded once: the float32 nearest below or above
// decides ties exactly when the double is not itself a float.
inline uint16_t BFloat16FromDouble(double d) {
  const float f = static_cast<float>(d);  // may round; fix the tie case below
  if (static_cast<double>(f) == d || f != f) return BFloat16FromFloat(f);
  const uint32_t u = FloatBits(f);
  if ((u & 0xffffu) == 0x8000u) {  // f sits exactly on a bf16 tie: d is off it
    const bool above = (d > static_cast<double>(f)) == ((u >> 31) == 0);  // away from zero
    return static_cast<uint16_t>((u >> 16) + (above ? 1u : 0u));
  }
  return BFloat16FromFloat(f);
}

}  // namespace half_internal

struct Half {
  uint16_t bits;  // trivial: a Half{} is +0, a default-initialised one unset (like float)

  Half() = default;
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  explicit Half(T v) : bits(half_internal::HalfFromDouble(static_cast<double>(v))) {}
  static constexpr Half FromBits(uint16_t b) {
    Half h{};
    h.bits = b;
    return h;
  }
  explicit operator float() const { return half_internal::HalfToFloat(bits); }
  explicit operator double() const { return static_cast<double>(half_internal::HalfToFloat(bits)); }
  float ToFloat() const { return half_internal::HalfToFloat(bits); }
  // Bitwise equality (NaN == NaN here; compare values through ToFloat()).
  friend bool operator==(Half a, Half b) { return a.bits == b.bits; }
  friend bool operator!=(Half a, Half b) { return a.bits != b.bits; }
};

struct BFloat16 {
  uint16_t bits;  // trivial: a BFloat16{} is +0, a default-initialised one unset (like float)

  BFloat16() = default;
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  explicit BFloat16(T v) : bits(Round(v)) {}
  static constexpr BFloat16 FromBits(uint16_t b) {
    BFloat16 h{};
    h.bits = b;
    return h;
  }
  explicit operator float() const { return ToFloat(); }
  explicit operator double() const { return static_cast<double>(ToFloat()); }
  float ToFloat() const { return half_internal::BitsFloat(static_cast<uint32_t>(bits) << 16); }
  friend bool operator==(BFloat16 a, BFloat16 b) { return a.bits == b.bits; }
  friend bool operator!=(BFloat16 a, BFloat16 b) { return a.bits != b.bits; }

 private:
  template <typename T>
  static uint16_t Round(T v) {
    if constexpr (std::is_same_v<T, float>) {
      return half_internal::BFloat16FromFloat(v);
    } else {
      return half_internal::BFloat16FromDouble(static_cast<double>(v));
    }
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);
static_assert(std::is_trivial_v<Half> && std::is_trivial_v<BFloat16>);

EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, Half h);      // as its float value
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, BFloat16 h);  // as its float value

}  // namespace eagervm

#endif  // EAGERVM_HALF_H_
