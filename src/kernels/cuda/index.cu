// The index check, IndexSelect and OneHot on the GPU: grid-stride loops over
// int64 element numbers. Every index is tested where it is used: one out of
// range (which the check run before should have caught) writes a zero
// instead of reading or writing outside the tensors.
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/index_launchers.h"

namespace eagervm::kernels::cuda {
namespace {

__global__ void FindBadIndexKernel(const int64_t* index, int64_t m, int64_t n,
                                   unsigned long long* first_bad) {
  EAGERVM_GRID_STRIDE(j, m) {
    const int64_t v = index[j];
    if (v < 0 || v >= n) atomicMin(first_bad, static_cast<unsigned long long>(j));
  }
}

// U: an unsigned integer of the element's size (the bytes are copied).
template <typename U>
__global__ void IndexSelectKernel(U* out, const U* x, const int64_t* index, int64_t n,
                                  int64_t inner, int64_t m, int64_t total) {
  const int64_t row = m * inner;  // > 0: total > 0
  EAGERVM_GRID_STRIDE(e, total) {
    const int64_t o = e / row, rem = e % row;
    const int64_t j = rem / inner, k = rem % inner;
    const int64_t v = index[j];
    out[e] = (v >= 0 && v < n) ? x[(o * n + v) * inner + k] : U{0};
  }
}

template <typename T>
__global__ void OneHotKernel(T* out, const int64_t* index, int64_t classes, int64_t total, T one,
                             T zero) {
  EAGERVM_GRID_STRIDE(e, total) out[e] = index[e / classes] == e % classes ? one : zero;
}

}  // namespace

cudaError_t LaunchFindBadIndex(const int64_t* index, int64_t m, int64_t n, uint64_t* first_bad,
                               cudaStream_t s) {
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t));
  // All bytes 0xFF: kNoBadIndex.
  if (cudaError_t e = cudaMemsetAsync(first_bad, 0xFF, sizeof(uint64_t), s); e != cudaSuccess) {
    return e;
  }
  if (m == 0) return cudaSuccess;
  FindBadIndexKernel<<<BlocksFor(m), kThreads, 0, s>>>(
      index, m, n, reinterpret_cast<unsigned long long*>(first_bad));
  return cudaGetLastError();
}

cudaError_t LaunchIndexSelect(int elem_bytes, void* out, const void* x, const int64_t* index,
                              int64_t outer, int64_t n, int64_t inner, int64_t m, cudaStream_t s) {
  const int64_t total = outer * m * inner;  // the output's numel: no overflow
  if (total == 0) return cudaSuccess;
  auto launch = [&](auto tag) {
    using U = decltype(tag);
    IndexSelectKernel<U><<<BlocksFor(total), kThreads, 0, s>>>(
        static_cast<U*>(out), static_cast<const U*>(x), index, n, inner, m, total);
    return cudaGetLastError();
  };
  switch (elem_bytes) {
    case 1:
      return launch(uint8_t{});
    case 2:
      return launch(uint16_t{});
    case 4:
      return launch(uint32_t{});
    case 8:
      return launch(uint64_t{});
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchOneHot(DT dt, void* out, const int64_t* index, int64_t rows, int64_t classes,
                         cudaStream_t s) {
  const int64_t total = rows * classes;  // the output's numel
  if (total == 0) return cudaSuccess;
  return DispatchAll(dt, [&](auto tag) {
    using T = decltype(tag);
    ScalarArg one, zero;
    one.f = 1;
    one.i = 1;
    OneHotKernel<T><<<BlocksFor(total), kThreads, 0, s>>>(
        static_cast<T*>(out), index, classes, total, FromScalar<T>(one), FromScalar<T>(zero));
    return cudaGetLastError();
  });
}

}  // namespace eagervm::kernels::cuda
