// Cast and RandomNormal: elementwise kernels whose results must match the CPU
// kernels' definitions (kernels/cpu/cast_kernels.cc, random_kernels.cc).
#include <climits>
#include <cmath>

#include "kernels/cuda/device_util.cuh"

namespace eagervm::kernels::cuda {
namespace {

__device__ __forceinline__ float ToFloat(__half x) { return __half2float(x); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename H>
__device__ __forceinline__ H FromDouble(double v) {
  if constexpr (std::is_same_v<H, __half>) {
    return __double2half(v);
  } else {
    return __double2bfloat16(v);
  }
}

// float to integer truncates toward zero, saturates, and maps NaN to 0; to
// bool is x != 0; to float16/bfloat16 rounds once to nearest even, from
// them is exact (through float); everything else is a C++ conversion.
template <typename To, typename From>
__device__ __forceinline__ To Convert(From x) {
  if constexpr (kIsHalf<From>) {
    return Convert<To>(ToFloat(x));
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From{0};
  } else if constexpr (kIsHalf<To>) {
    if constexpr (std::is_same_v<From, bool>) {
      return FromDouble<To>(x ? 1.0 : 0.0);
    } else {
      return FromDouble<To>(static_cast<double>(x));
    }
  } else if constexpr (std::is_floating_point_v<From> && std::is_same_v<To, uint8_t>) {
    if (x != x || x < From(0)) return To{0};
    if (x >= From(256)) return To{255};
    return static_cast<To>(x);
  } else if constexpr (std::is_floating_point_v<From> && kIsInt<To>) {
    constexpr From lo =
        std::is_same_v<To, int32_t> ? From(-2147483648.0) : From(-9223372036854775808.0);
    constexpr From hi = -lo;
    if (x != x) return To{0};
    if (x < lo) return std::is_same_v<To, int32_t> ? To(INT32_MIN) : To(INT64_MIN);
    if (x >= hi) return std::is_same_v<To, int32_t> ? To(INT32_MAX) : To(INT64_MAX);
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

template <typename To, typename From>
__global__ void CastKernel(To* out, const From* x, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) out[i] = Convert<To>(x[i]);
}

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

__device__ __forceinline__ uint64_t Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One thread per pair of outputs: (2p, 2p+1) come from counter p.
template <typename T>
__global__ void RandomNormalKernel(T* out, int64_t n, uint64_t key) {
  EAGERVM_GRID_STRIDE(p, (n + 1) / 2) {
    const uint64_t r1 = Finalize(key + (2 * static_cast<uint64_t>(p) + 1) * kGolden);
    const uint64_t r2 = Finalize(key + (2 * static_cast<uint64_t>(p) + 2) * kGolden);
    const double u1 = static_cast<double>((r1 >> 11) + 1) * 0x1.0p-53;
    const double u2 = static_cast<double>(r2 >> 11) * 0x1.0p-53;
    const double radius = sqrt(-2.0 * log(u1));
    const double angle = 2.0 * 3.14159265358979323846 * u2;
    out[2 * p] = static_cast<T>(radius * cos(angle));
    if (2 * p + 1 < n) out[2 * p + 1] = static_cast<T>(radius * sin(angle));
  }
}

template <typename T>
__global__ void RandomUniformKernel(T* out, int64_t n, uint64_t key, double lo, double hi, T top) {
  EAGERVM_GRID_STRIDE(i, n) {
    const uint64_t r = Finalize(key + (static_cast<uint64_t>(i) + 1) * kGolden);
    const double u = static_cast<double>(r >> 11) * 0x1.0p-53;
    // Rounded twice, as the CPU kernel does: nvcc would fuse lo + (hi - lo) * u
    // into one fma (rounded once), one ulp away from the CPU's value.
    const T v = static_cast<T>(__dadd_rn(lo, __dmul_rn(hi - lo, u)));
    out[i] = v < static_cast<T>(hi) ? v : top;
  }
}

}  // namespace

cudaError_t LaunchRandomUniform(DT dt, void* out, int64_t n, uint64_t key, double lo, double hi,
                                double top, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (dt == DT::kFloat32) {
    RandomUniformKernel<float><<<BlocksFor(n), kThreads, 0, s>>>(static_cast<float*>(out), n, key,
                                                                 lo, hi, static_cast<float>(top));
  } else if (dt == DT::kFloat64) {
    RandomUniformKernel<double>
        <<<BlocksFor(n), kThreads, 0, s>>>(static_cast<double*>(out), n, key, lo, hi, top);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchCast(DT from, DT to, void* out, const void* x, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (from == to) {
    return cudaMemcpyAsync(out, x, static_cast<size_t>(n) * ElemBytes(from),
                           cudaMemcpyDeviceToDevice, s);
  }
  return DispatchAll(from, [&](auto from_tag) {
    return DispatchAll(to, [&](auto to_tag) {
      using F = decltype(from_tag);
      using T = decltype(to_tag);
      CastKernel<T, F>
          <<<BlocksFor(n), kThreads, 0, s>>>(static_cast<T*>(out), static_cast<const F*>(x), n);
      return cudaGetLastError();
    });
  });
}

cudaError_t LaunchRandomNormal(DT dt, void* out, int64_t n, uint64_t key, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (dt == DT::kFloat32) {
    RandomNormalKernel<float>
        <<<BlocksFor((n + 1) / 2), kThreads, 0, s>>>(static_cast<float*>(out), n, key);
  } else if (dt == DT::kFloat64) {
    RandomNormalKernel<double>
        <<<BlocksFor((n + 1) / 2), kThreads, 0, s>>>(static_cast<double*>(out), n, key);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace eagervm::kernels::cuda
