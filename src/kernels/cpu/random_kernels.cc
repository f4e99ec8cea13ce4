// RandomNormal and RandomUniform: element i is a pure function of (seed, i). The generator is
// counter based (splitmix64 at position i of the stream keyed by the seed) and
// Box-Muller turns pairs of uniforms into pairs of normals, so the values do
// not depend on which stream or thread runs the kernel, on how the work is
// split, or on anything generated before. float32 is float64's value rounded.
#include <cmath>
#include <cstdint>

#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Two standard normals from counter `pair` of stream `key`.
void NormalPair(uint64_t key, uint64_t pair, double* z0, double* z1) {
  const uint64_t r1 = Finalize(key + (2 * pair + 1) * kGolden);
  const uint64_t r2 = Finalize(key + (2 * pair + 2) * kGolden);
  const double u1 = static_cast<double>((r1 >> 11) + 1) * 0x1.0p-53;  // (0, 1]: log is finite
  const double u2 = static_cast<double>(r2 >> 11) * 0x1.0p-53;        // [0, 1)
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * M_PI * u2;
  *z0 = radius * std::cos(angle);
  *z1 = radius * std::sin(angle);
}

template <typename T>
struct RandomNormal {  // out ~ N(0, 1); scalar(0) is the seed's bits
  static absl::Status Run(KernelContext& ctx) {
    T* out = ctx.output<T>(0);
    const int64_t n = ctx.output_meta(0).shape.numel();
    const uint64_t key = Finalize(static_cast<uint64_t>(ctx.scalar(0).to<int64_t>()));
    double z0, z1;
    for (int64_t i = 0; i + 1 < n; i += 2) {
      NormalPair(key, static_cast<uint64_t>(i / 2), &z0, &z1);
      out[i] = static_cast<T>(z0);
      out[i + 1] = static_cast<T>(z1);
    }
    if (n % 2 == 1) {
      NormalPair(key, static_cast<uint64_t>(n / 2), &z0, &z1);
      out[n - 1] = static_cast<T>(z0);
    }
    return absl::OkStatus();
  }
};

// U[lo, hi): element i from counter i of the stream keyed by the seed.
template <typename T>
struct RandomUniform {  // scalar(0) is the seed's bits; attrs "lo", "hi"
  static absl::Status Run(KernelContext& ctx) {
    T* out = ctx.output<T>(0);
    const int64_t n = ctx.output_meta(0).shape.numel();
    const uint64_t key = Finalize(static_cast<uint64_t>(ctx.scalar(0).to<int64_t>()));
    const double lo = std::get<double>(ctx.attrs().at("lo"));
    const double hi = std::get<double>(ctx.attrs().at("hi"));
    const T top = std::nextafter(static_cast<T>(hi), static_cast<T>(lo));  // largest below hi
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t r = Finalize(key + (static_cast<uint64_t>(i) + 1) * kGolden);
      const double u = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
      const T v = static_cast<T>(lo + (hi - lo) * u);
      out[i] = v < static_cast<T>(hi) ? v : top;  // rounding never reaches hi
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterRandomCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<RandomNormal>(r, builtin::kRandomNormal, kFloatDTypes);
  RegisterCpu<RandomUniform>(r, builtin::kRandomUniform, kFloatDTypes);
}

}  // namespace eagervm::kernels
