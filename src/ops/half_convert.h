// float -> float16 bits, round to nearest even, without going through double:
// the hot loop of 16-bit kernels (ops/widen.cc, the CPU Cast). Equal to
// Half(float) (eagervm/half.h) for every float, except that a NaN becomes the
// quiet NaN 0x7e00 of its sign (payload dropped). Pure; any thread.
#ifndef EAGERVM_OPS_HALF_CONVERT_H_
#define EAGERVM_OPS_HALF_CONVERT_H_

#include <cstdint>
#include <cstring>

namespace eagervm::internal {

inline uint16_t HalfBitsFromFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  const uint32_t sign = (u >> 16) & 0x8000u;
  u &= 0x7fffffffu;
  if (u >= 0x47800000u) {  // |f| >= 65536 (inf), or NaN
    return static_cast<uint16_t>(sign | (u > 0x7f800000u ? 0x7e00u : 0x7c00u));
  }
  if (u < 0x38800000u) {  // below 2^-14: a float16 subnormal or zero
    // Adding 0.5 (2^-1) puts f's bits at the scale of float16's subnormal
    // step (2^-24 = 2^-1 * 2^-23): the FPU's own rounding (to nearest even)
    // rounds f to that step, and the low mantissa bits are the result.
    float x;
    std::memcpy(&x, &u, sizeof(x));
    x += 0.5f;
    uint32_t r;
    std::memcpy(&r, &x, sizeof(r));
    return static_cast<uint16_t>(sign | (r - 0x3f000000u));
  }
  // Normal: rebias the exponent, round the 13 dropped bits to nearest even;
  // a carry rolls into the exponent (up to inf at 65520).
  const uint32_t odd = (u >> 13) & 1u;
  u += 0xc8000fffu + odd;  // (15 - 127) << 23 (mod 2^32), plus the rounding bias
  return static_cast<uint16_t>(sign | (u >> 13));
}

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_HALF_CONVERT_H_
