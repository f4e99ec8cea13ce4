// Strided views on CUDA: a compact copy of a view (gather) and a write of a
// compact tensor into a view's elements (scatter). Every other CUDA kernel
// reads compact operands: the ops layer makes these copies for them
// (ops/strided.h).
#include "kernels/cuda/device_util.cuh"

namespace eagervm::kernels::cuda {
namespace {

// The view's element offset of compact index i.
__device__ __forceinline__ int64_t ViewOffset(const StridedArgs& p, int64_t i) {
  int64_t off = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t idx = i % p.dims[d];
    i /= p.dims[d];
    off += idx * p.strides[d];
  }
  return off;
}

template <typename T>
__global__ void GatherKernel(T* out, const T* view, StridedArgs p, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) out[i] = view[ViewOffset(p, i)];
}

template <typename T>
__global__ void ScatterKernel(T* view, const T* in, StridedArgs p, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) view[ViewOffset(p, i)] = in[i];
}

template <typename T>
cudaError_t Strided(bool scatter, void* dst, const void* src, const StridedArgs& p, int64_t n,
                    cudaStream_t s) {
  if (scatter) {
    ScatterKernel<T>
        <<<BlocksFor(n), kThreads, 0, s>>>(static_cast<T*>(dst), static_cast<const T*>(src), p, n);
  } else {
    GatherKernel<T>
        <<<BlocksFor(n), kThreads, 0, s>>>(static_cast<T*>(dst), static_cast<const T*>(src), p, n);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStridedCopy(int elem_bytes, bool scatter, void* dst, const void* src,
                              const StridedArgs& args, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      return Strided<uint8_t>(scatter, dst, src, args, n, s);
    case 2:
      return Strided<uint16_t>(scatter, dst, src, args, n, s);
    case 4:
      return Strided<uint32_t>(scatter, dst, src, args, n, s);
    case 8:
      return Strided<uint64_t>(scatter, dst, src, args, n, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace eagervm::kernels::cuda
