// What a CUDA kernel may ask of the backend that runs it, given only its
// KernelContext: the kernels layer sees this header, not the VM's internals.
// Includes nothing but public eagervm headers and CUDA's.
#ifndef EAGERVM_DEVICE_CUDA_KERNEL_RESOURCES_H_
#define EAGERVM_DEVICE_CUDA_KERNEL_RESOURCES_H_

#include <cublas_v2.h>

#include "absl/status/statusor.h"
#include "eagervm/custom_op.h"

namespace eagervm::device::cuda {

// The cuBLAS handle of the CUDA stream running the kernel (created on first
// use, bound to that stream). Only during the kernel call, on its thread.
// FailedPrecondition if the kernel does not run on a CUDA stream.
absl::StatusOr<cublasHandle_t> CublasHandle(const KernelContext& ctx);

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_KERNEL_RESOURCES_H_
