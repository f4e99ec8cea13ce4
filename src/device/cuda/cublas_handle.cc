// The cuBLAS handle of a CUDA stream: one per compute stream (a handle is not
// safe to share between streams used concurrently), created with the stream,
// on the user thread that first used it (CudaStreamPolicy::Create); a failed
// creation is retried by the first MatMul, on the scheduler thread.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"

namespace eagervm::device::cuda {
namespace {
// cuBLAS's recommendation for Hopper (smaller GPUs need less).
constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;
}  // namespace

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
  // A workspace of our own, so that cuBLAS allocates nothing during a CUDA
  // graph capture (graph mode replays MatMuls that way).
  void* ws = nullptr;
  if (cudaMalloc(&ws, kCublasWorkspaceBytes) == cudaSuccess) {
    if (cublasSetWorkspace(h, ws, kCublasWorkspaceBytes) == CUBLAS_STATUS_SUCCESS) {
      cublas_workspace_ = ws;
    } else {
      (void)cudaFree(ws);
    }
  } else {
    (void)cudaGetLastError();  // without it cuBLAS uses its own; capture may then fall back
  }
  cublas_ = h;
  return cublas_;
}

void CudaStreamPolicy::DestroyCublas() {
  if (cublas_ != nullptr) (void)cublasDestroy(static_cast<cublasHandle_t>(cublas_));
  cublas_ = nullptr;
  if (cublas_workspace_ != nullptr) (void)cudaFree(cublas_workspace_);
  cublas_workspace_ = nullptr;
}

}  // namespace eagervm::device::cuda
