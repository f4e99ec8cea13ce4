// Shared device-side helpers of the .cu files (C++17, CUDA only).
#ifndef EAGERVM_KERNELS_CUDA_DEVICE_UTIL_CUH_
#define EAGERVM_KERNELS_CUDA_DEVICE_UTIL_CUH_

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
__host__ __device__ __forceinline__ T FromScalar(ScalarArg s) {
  if constexpr (std::is_same_v<T, bool>) {
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
  }
  return cudaErrorInvalidValue;
}

}  // namespace eagervm::kernels::cuda

#endif  // EAGERVM_KERNELS_CUDA_DEVICE_UTIL_CUH_
