// The one place CUDA and cuBLAS error codes become absl::Status. Every CUDA
// API call in eagervm goes through CudaStatus()/EAGERVM_CUDA_RETURN_IF_ERROR,
// so messages have one shape: "<what>: <cudaErrorName> (<description>)".
#ifndef EAGERVM_DEVICE_CUDA_CUDA_STATUS_H_
#define EAGERVM_DEVICE_CUDA_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include <string_view>

#include "absl/status/status.h"

namespace eagervm::device::cuda {

// OK for cudaSuccess. Out-of-memory maps to ResourceExhausted, a missing
// driver or device to FailedPrecondition, bad arguments to InvalidArgument,
// everything else (launch failures, sticky errors) to Internal. A failure
// also clears the thread's pending CUDA error (cudaGetLastError), so that a
// later launch on this thread reports only its own error.
absl::Status CudaStatus(cudaError_t error, std::string_view what);

// The same mapping for cublasStatus_t (passed as int to keep cuBLAS headers
// out of the callers that do not need them).
absl::Status CublasStatus(int status, std::string_view what);

}  // namespace eagervm::device::cuda

// Returns from the enclosing function (returning absl::Status) when the CUDA
// call `expr` fails; the message names the call.
#define EAGERVM_CUDA_RETURN_IF_ERROR(expr)                                  \
  do {                                                                      \
    const cudaError_t eagervm_cuda_err_ = (expr);                           \
    if (eagervm_cuda_err_ != cudaSuccess)                                   \
      return ::eagervm::device::cuda::CudaStatus(eagervm_cuda_err_, #expr); \
  } while (0)

#endif  // EAGERVM_DEVICE_CUDA_CUDA_STATUS_H_
