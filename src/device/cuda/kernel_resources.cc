#include "device/cuda/kernel_resources.h"

#include "device/cuda/cuda_stream_policy.h"
#include "vm/kernel_args.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::device::cuda {

absl::StatusOr<cublasHandle_t> CublasHandle(const KernelContext& ctx) {
  const internal::KernelArgs& args = internal::KernelContextAccess::Args(ctx);
  CudaStreamPolicy* policy = args.stream != nullptr ? AsCudaPolicy(args.stream->policy()) : nullptr;
  if (policy == nullptr) {
    return absl::FailedPreconditionError("CublasHandle: the kernel does not run on a CUDA stream");
  }
  absl::StatusOr<void*> handle = policy->cublas_handle();
  if (!handle.ok()) return handle.status();
  return static_cast<cublasHandle_t>(*handle);
}

}  // namespace eagervm::device::cuda
