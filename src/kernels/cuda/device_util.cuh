// Shared device-side helpers of the .cu files (C++17, CUDA only).
#ifndef EAGERVM_KERNELS_CUDA_DEVICE_UTIL_CUH_
#define EAGERVM_KERNELS_CUDA_DEVICE_UTIL_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "base/arith.h"
#include "kernels/cuda/launchers.h"

namespace eagervm::kernels::cuda {

inline constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements (bounded: a grid-stride loop
// covers the rest, and a huge grid only costs scheduling).
inline unsigned BlocksFor(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 * 8 ? 65535 * 8 : b));
}

#define EAGERVM_GRID_STRIDE(i, n)                                                        \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// Integer arithmetic wraps (two's complement), as on the CPU: the same
// functions (base/arith.h).
using base::kIsInt;
using base::MaxOf;
using base::WrapAdd;
using base::WrapDiv;
using base::WrapMul;
using base::WrapSub;

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <typename T>
__host__ __device__ __forceinline__ T FromScalar(ScalarArg s) {
  if constexpr (std::is_same_v<T, __half>) {
    return __double2half(s.f);  // one rounding, to nearest even
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __double2bfloat16(s.f);
  } else if constexpr (std::is_same_v<T, bool>) {
    return s.i != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(s.f);
  } else {
    return static_cast<T>(s.i);
  }
}

// Calls f(T{}) for the C++ type of `dt`.
template <typename F>
cudaError_t Dispatch(DT dt, F&& f) {
  switch (dt) {
    case DT::kBool:
      return f(bool{});
    case DT::kInt32:
      return f(int32_t{});
    case DT::kInt64:
      return f(int64_t{});
    case DT::kFloat32:
      return f(float{});
    case DT::kFloat64:
      return f(double{});
    case DT::kUInt8:
    case DT::kFloat16:
    case DT::kBFloat16:
      break;  // DispatchAll
  }
  return cudaErrorInvalidValue;
}

// Dispatch and uint8: the integer kernels that run on uint8 as on the CPU
// (wrapping arithmetic, comparisons, Where, Minimum, Abs).
template <typename F>
cudaError_t DispatchU8(DT dt, F&& f) {
  if (dt == DT::kUInt8) return f(uint8_t{});
  return Dispatch(dt, f);
}

// Dispatch over every DT, uint8 and the 16-bit floats included: for the
// kernels that only store or convert elements (Fill, Cast).
template <typename F>
cudaError_t DispatchAll(DT dt, F&& f) {
  switch (dt) {
    case DT::kUInt8:
      return f(uint8_t{});
    case DT::kFloat16:
      return f(__half{});
    case DT::kBFloat16:
      return f(__nv_bfloat16{});
    default:
      return Dispatch(dt, f);
  }
}

inline size_t ElemBytes(DT dt) {
  switch (dt) {
    case DT::kBool:
    case DT::kUInt8:
      return 1;
    case DT::kFloat16:
    case DT::kBFloat16:
      return 2;
    case DT::kInt32:
    case DT::kFloat32:
      return 4;
    case DT::kInt64:
    case DT::kFloat64:
      return 8;
  }
  return 8;
}

}  // namespace eagervm::kernels::cuda

#endif  // EAGERVM_KERNELS_CUDA_DEVICE_UTIL_CUH_
