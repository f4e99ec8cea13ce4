// CudaStreamPolicy::ReadFinalToHost: Item(), ToVector() and Wait() of a CUDA
// tensor whose writes have all completed, answered on the reading thread
// (VmImpl::ReadIfFinal) with no instruction, no scheduler pass and no
// event poll: the latency of the driver's own copy and synchronisation.
//
// Its own stream: the copy waits for no other work queued on the device
// (the storage's writes are complete; concurrent readers do not matter). Its
// own pinned block: a D2H copy into pageable memory is staged by the driver
// anyway, and ours is reused. Both are made on first use and kept for the
// policy's life (the process's), made when the stream is (PrepareFinalReads,
// on the user thread that first uses it, before it has queued work).
#include <cstring>

#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"
#include "device/cuda/scoped_device.h"

namespace eagervm::device::cuda {

void CudaStreamPolicy::PrepareFinalReads() {
  base::MutexLock lock(&final_read_mu_);
  if (final_read_stream_.get() == nullptr) {
    absl::StatusOr<CudaStream> s = CudaStream::Create();
    if (!s.ok()) return;  // ReadFinalToHost tries again and says why
    final_read_stream_ = std::move(s).value();
  }
  if (final_read_staging_ == nullptr && cudaHostAlloc(&final_read_staging_, kFinalReadStagingBytes,
                                                      cudaHostAllocPortable) != cudaSuccess) {
    (void)cudaGetLastError();
    final_read_staging_ = nullptr;  // reads go straight into their destination
  }
}

absl::Status CudaStreamPolicy::ReadFinalToHost(void* dst, const void* src, size_t bytes) {
  base::MutexLock lock(&final_read_mu_);
  ScopedDevice on(device_.index());
  if (!on.status().ok()) return on.status();
  if (final_read_stream_.get() == nullptr) {
    absl::StatusOr<CudaStream> s = CudaStream::Create();
    if (!s.ok()) return s.status();
    final_read_stream_ = std::move(s).value();
  }
  // A failed device (a fault in any earlier kernel, sticky for the context)
  // answers no read, not even of bytes computed before the fault.
  if (device_error_ != nullptr) return device_error_->status;
  if (dst == nullptr || bytes == 0) {  // Wait(): only the device's health
    const cudaError_t e = cudaStreamQuery(final_read_stream_.get());
    if (e == cudaSuccess || e == cudaErrorNotReady) return absl::OkStatus();
    (void)cudaGetLastError();
    return CudaStatus(e, "waiting for a tensor on the device (cudaStreamQuery)");
  }
  // No pinned block (PrepareFinalReads could not have one): straight into
  // dst. Never allocated here: cudaHostAlloc may wait for the whole device,
  // the very wait this path exists to skip.
  const bool staged = bytes <= kFinalReadStagingBytes && final_read_staging_ != nullptr;
  cudaError_t e = cudaMemcpyAsync(staged ? final_read_staging_ : dst, src, bytes,
                                  cudaMemcpyDeviceToHost, final_read_stream_.get());
  if (e == cudaSuccess) e = cudaStreamSynchronize(final_read_stream_.get());
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return CudaStatus(e, "reading a tensor from the device (cudaMemcpyAsync)");
  }
  if (staged) std::memcpy(dst, final_read_staging_, bytes);
  return absl::OkStatus();
}

}  // namespace eagervm::device::cuda
