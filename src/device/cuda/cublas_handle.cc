// The cuBLAS handle of a CUDA stream: one per stream (a handle is not safe to
// share between streams used concurrently), created on the first MatMul.
#include <cublas_v2.h>

#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"

namespace eagervm::device::cuda {

absl::StatusOr<void*> CudaStreamPolicy::cublas_handle() {
  if (cublas_ != nullptr) return cublas_;
  cublasHandle_t h = nullptr;
  absl::Status s = CublasStatus(cublasCreate(&h), "cublasCreate");
  if (!s.ok()) return s;
  s = CublasStatus(cublasSetStream(h, stream_.get()), "cublasSetStream");
  if (!s.ok()) {
    (void)cublasDestroy(h);
    return s;
  }
  cublas_ = h;
  return cublas_;
}

void CudaStreamPolicy::DestroyCublas() {
  if (cublas_ != nullptr) (void)cublasDestroy(static_cast<cublasHandle_t>(cublas_));
  cublas_ = nullptr;
}

}  // namespace eagervm::device::cuda
