#include "kernels/cuda/index_check.h"

#include <cuda_runtime_api.h>

#include "base/str_cat.h"
#include "kernels/cuda/index_launchers.h"
#include "kernels/cuda/kernel_util.h"

namespace eagervm::kernels::cuda_impl {

absl::StatusOr<BadIndex> FindBadIndex(KernelContext& ctx, const int64_t* index, int64_t m,
                                      int64_t n, const char* op) {
  BadIndex bad;
  if (m == 0) return bad;
  cudaStream_t s = StreamOf(ctx);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaStreamIsCapturing(s, &capture));
  if (capture != cudaStreamCaptureStatusNone) {
    return absl::FailedPreconditionError(
        base::Cat(op,
                  ": checking the indices waits for the stream, which a CUDA graph cannot "
                  "record (the segment runs its kernels one by one instead)"));
  }
  absl::StatusOr<void*> word = ctx.AllocateTemp(sizeof(uint64_t));  // freed in stream order
  if (!word.ok()) return word.status();
  auto* first_bad = static_cast<uint64_t*>(*word);
  EAGERVM_CUDA_RETURN_IF_ERROR(cuda::LaunchFindBadIndex(index, m, n, first_bad, s));
  uint64_t position = cuda::kNoBadIndex;
  // Pageable host memory: the copy is in stream order; the synchronisation
  // makes it complete whatever the driver does with pageable copies.
  EAGERVM_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(&position, first_bad, sizeof position, cudaMemcpyDeviceToHost, s));
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s));
  if (position == cuda::kNoBadIndex) return bad;
  if (position >= static_cast<uint64_t>(m)) {
    return absl::InternalError(
        base::Cat(op, ": the index check returned position ", position, " of ", m, " indices"));
  }
  bad.position = static_cast<int64_t>(position);
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(&bad.value, index + bad.position, sizeof bad.value,
                                               cudaMemcpyDeviceToHost, s));
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s));
  return bad;
}

}  // namespace eagervm::kernels::cuda_impl
