// SgdStep, SgdMomentumStep and AdamStep on the GPU: one grid-stride loop
// each, every operation through an explicitly rounded intrinsic (__fmul_rn,
// __dadd_rn, ...) so nvcc cannot contract a multiply and an add into an FMA
// (it would by default), and division and square root are IEEE's whatever
// the compiler flags: the CPU kernels' roundings (kernels/cpu/
// optim_kernels.cc, built with -ffp-contract=off).
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/optim_launchers.h"

namespace eagervm::kernels::cuda {
namespace {

struct F32 {
  using T = float;
  static __device__ __forceinline__ T Add(T a, T b) { return __fadd_rn(a, b); }
  static __device__ __forceinline__ T Sub(T a, T b) { return __fsub_rn(a, b); }
  static __device__ __forceinline__ T Mul(T a, T b) { return __fmul_rn(a, b); }
  static __device__ __forceinline__ T Div(T a, T b) { return __fdiv_rn(a, b); }
  static __device__ __forceinline__ T Sqrt(T a) { return __fsqrt_rn(a); }
};
struct F64 {
  using T = double;
  static __device__ __forceinline__ T Add(T a, T b) { return __dadd_rn(a, b); }
  static __device__ __forceinline__ T Sub(T a, T b) { return __dsub_rn(a, b); }
  static __device__ __forceinline__ T Mul(T a, T b) { return __dmul_rn(a, b); }
  static __device__ __forceinline__ T Div(T a, T b) { return __ddiv_rn(a, b); }
  static __device__ __forceinline__ T Sqrt(T a) { return __dsqrt_rn(a); }
};

template <typename R, typename T = typename R::T>
__global__ void SgdKernel(T* p, const T* g, bool weight_decay, T wd, T neg_lr, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) {
    const T d = weight_decay ? R::Add(g[i], R::Mul(p[i], wd)) : g[i];
    p[i] = R::Add(p[i], R::Mul(neg_lr, d));
  }
}

template <typename R, typename T = typename R::T>
__global__ void SgdMomentumKernel(T* p, const T* g, T* buf, const T* momentum, bool weight_decay,
                                  T wd, T neg_lr, int64_t n) {
  const T mom = *momentum;
  EAGERVM_GRID_STRIDE(i, n) {
    const T d = weight_decay ? R::Add(g[i], R::Mul(p[i], wd)) : g[i];
    const T b = R::Add(R::Mul(buf[i], mom), d);
    buf[i] = b;
    p[i] = R::Add(p[i], R::Mul(neg_lr, b));
  }
}

template <typename R, typename T = typename R::T>
__global__ void AdamKernel(T* p, const T* g, T* m, T* v, const T* s1p, const T* r2p, const T* betas,
                           T eps, int64_t n) {
  const T s1 = *s1p, r2 = *r2p;
  const T beta1 = betas[0], one_minus_beta1 = betas[1], beta2 = betas[2],
          one_minus_beta2 = betas[3];
  EAGERVM_GRID_STRIDE(i, n) {
    const T gi = g[i];
    T mi = R::Mul(m[i], beta1);
    mi = R::Add(mi, R::Mul(one_minus_beta1, gi));
    const T gg = R::Mul(gi, gi);
    T vi = R::Mul(v[i], beta2);
    vi = R::Add(vi, R::Mul(one_minus_beta2, gg));
    m[i] = mi;
    v[i] = vi;
    const T denom = R::Add(R::Mul(R::Sqrt(vi), r2), eps);
    const T update = R::Mul(R::Div(mi, denom), s1);
    p[i] = R::Sub(p[i], update);
  }
}

// Calls f(F32{}) or f(F64{}).
template <typename F>
cudaError_t DispatchFloat(DT dt, F&& f) {
  if (dt == DT::kFloat32) return f(F32{});
  if (dt == DT::kFloat64) return f(F64{});
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchSgdStep(DT dt, void* p, const void* g, bool weight_decay, double wd,
                          double neg_lr, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchFloat(dt, [&](auto r) {
    using R = decltype(r);
    using T = typename R::T;
    SgdKernel<R><<<BlocksFor(n), kThreads, 0, s>>>(static_cast<T*>(p), static_cast<const T*>(g),
                                                   weight_decay, static_cast<T>(wd),
                                                   static_cast<T>(neg_lr), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchSgdMomentumStep(DT dt, void* p, const void* g, void* buf, const void* momentum,
                                  bool weight_decay, double wd, double neg_lr, int64_t n,
                                  cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchFloat(dt, [&](auto r) {
    using R = decltype(r);
    using T = typename R::T;
    SgdMomentumKernel<R><<<BlocksFor(n), kThreads, 0, s>>>(
        static_cast<T*>(p), static_cast<const T*>(g), static_cast<T*>(buf),
        static_cast<const T*>(momentum), weight_decay, static_cast<T>(wd), static_cast<T>(neg_lr),
        n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchAdamStep(DT dt, void* p, const void* g, void* m, void* v, const void* s1,
                           const void* r2, const void* betas, double eps, int64_t n,
                           cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchFloat(dt, [&](auto r) {
    using R = decltype(r);
    using T = typename R::T;
    AdamKernel<R><<<BlocksFor(n), kThreads, 0, s>>>(
        static_cast<T*>(p), static_cast<const T*>(g), static_cast<T*>(m), static_cast<T*>(v),
        static_cast<const T*>(s1), static_cast<const T*>(r2), static_cast<const T*>(betas),
        static_cast<T>(eps), n);
    return cudaGetLastError();
  });
}

}  // namespace eagervm::kernels::cuda
