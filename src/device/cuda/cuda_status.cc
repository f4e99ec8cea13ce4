#include "device/cuda/cuda_status.h"

#include <cublas_v2.h>

#include "base/str_cat.h"

namespace eagervm::device::cuda {

absl::Status CudaStatus(cudaError_t error, std::string_view what) {
  if (error == cudaSuccess) return absl::OkStatus();
  // A failed call leaves the per-thread "last error" set, and every launcher
  // reads it back with cudaGetLastError(): clear it here, where the failure
  // becomes this call's status, so it cannot poison the next, innocent
  // launch (a sticky device error is not cleared by this: it keeps failing
  // every later call, as it should).
  (void)cudaGetLastError();
  std::string msg =
      base::Cat(what, ": ", cudaGetErrorName(error), " (", cudaGetErrorString(error), ")");
  switch (error) {
    case cudaErrorMemoryAllocation:
      return absl::ResourceExhaustedError(std::move(msg));
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorCudartUnloading:
      return absl::FailedPreconditionError(std::move(msg));
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration:
      return absl::InvalidArgumentError(std::move(msg));
    default:
      return absl::InternalError(std::move(msg));
  }
}

absl::Status CublasStatus(int status, std::string_view what) {
  const auto s = static_cast<cublasStatus_t>(status);
  if (s == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  std::string msg =
      base::Cat(what, ": ", cublasGetStatusName(s), " (", cublasGetStatusString(s), ")");
  switch (s) {
    case CUBLAS_STATUS_ALLOC_FAILED:
      return absl::ResourceExhaustedError(std::move(msg));
    case CUBLAS_STATUS_NOT_INITIALIZED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return absl::FailedPreconditionError(std::move(msg));
    case CUBLAS_STATUS_INVALID_VALUE:
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return absl::InvalidArgumentError(std::move(msg));
    default:
      return absl::InternalError(std::move(msg));
  }
}

}  // namespace eagervm::device::cuda
