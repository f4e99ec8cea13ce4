// Cast between every pair of dtypes. Registered per input dtype; the output's
// dtype picks the inner loop. Conversions are total (no undefined behaviour):
//   to bool: x != 0 (NaN is true, as in C++ and numpy);
//   from bool: 0 or 1;
//   float to integer: truncates toward zero, saturates at the integer's range,
//   and NaN becomes 0 (C++ leaves out-of-range conversions undefined);
//   integer to integer: wraps (two's complement), as numpy's astype;
//   to float16 / bfloat16: rounds to nearest even once (from float64 too),
//   overflows to +-inf, keeps NaN and +-inf; from them: exact in float32.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/kernel_util.h"
#include "ops/half_convert.h"

namespace eagervm::kernels {
namespace {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename To, typename From>
To Convert(From x) {
  if constexpr (kIsHalf<From>) {
    return Convert<To>(x.ToFloat());  // exact
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From{0};
  } else if constexpr (kIsHalf<To>) {
    if constexpr (std::is_same_v<From, bool>) {
      return To(x ? 1.0f : 0.0f);
    } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Half>) {
      return Half::FromBits(internal::HalfBitsFromFloat(x));  // no detour through double
    } else if constexpr (std::is_same_v<From, float>) {
      return To(x);
    } else {
      return To(static_cast<double>(x));  // one rounding (integers: exact below 2^53)
    }
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // [lo, hi) in From: 2^(digits) and 2^8 are exact in floating point, max() may not be.
    constexpr From lo = static_cast<From>(std::numeric_limits<To>::min());
    constexpr From hi = lo < 0 ? -lo : static_cast<From>(std::numeric_limits<To>::max()) + 1;
    if (std::isnan(x)) return To{0};
    if (x < lo) return std::numeric_limits<To>::min();
    if (x >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

template <typename To, typename From>
void CastLoop(const From* x, To* out, int64_t n) {
  if constexpr (std::is_same_v<To, From>) {
    if (n > 0) std::memcpy(out, x, static_cast<size_t>(n) * sizeof(To));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Convert<To>(x[i]);
  }
}

template <typename From>
struct Cast {
  static absl::Status Run(KernelContext& ctx) {
    const From* x = ctx.input<From>(0);
    void* out = ctx.raw_output(0);
    const int64_t n = ctx.input_meta(0).shape.numel();
    VisitDType(ctx.output_meta(0).dtype, [&](auto zero) {
      using To = decltype(zero);
      CastLoop(x, static_cast<To*>(out), n);
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterCastCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Cast>(r, builtin::kCast, kAllDTypes);
  RegisterCpuTyped<Cast, uint8_t, Half, BFloat16>(r, builtin::kCast);
}

}  // namespace eagervm::kernels
