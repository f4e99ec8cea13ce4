#include "device/cuda/cuda_handles.h"

#include <atomic>

#include "device/cuda/cuda_status.h"

namespace eagervm::device::cuda {
namespace {
std::atomic<int64_t> events_created{0};
}  // namespace

int64_t CudaEventsCreated() { return events_created.load(std::memory_order_relaxed); }

absl::StatusOr<CudaStream> CudaStream::Create() {
  cudaStream_t s = nullptr;
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return CudaStream(s);
}

absl::StatusOr<CudaEvent> CudaEvent::Create() {
  cudaEvent_t e = nullptr;
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  events_created.fetch_add(1, std::memory_order_relaxed);
  return CudaEvent(e);
}

}  // namespace eagervm::device::cuda
