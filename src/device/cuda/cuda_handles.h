// RAII owners of cudaStream_t and cudaEvent_t. Move-only; destruction
// releases the handle and ignores errors (it may run while the CUDA runtime
// is unloading at process exit).
#ifndef EAGERVM_DEVICE_CUDA_CUDA_HANDLES_H_
#define EAGERVM_DEVICE_CUDA_CUDA_HANDLES_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>

#include "absl/status/statusor.h"

namespace eagervm::device::cuda {

class CudaStream {
 public:
  CudaStream() = default;
  // A non-blocking stream on the current device: it does not synchronise with
  // the legacy default stream, so user code on stream 0 cannot stall the VM.
  static absl::StatusOr<CudaStream> Create();
  ~CudaStream() { Reset(); }
  CudaStream(CudaStream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  CudaStream& operator=(CudaStream&& o) noexcept {
    if (this != &o) {
      Reset();
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return s_; }

 private:
  explicit CudaStream(cudaStream_t s) : s_(s) {}
  void Reset() {
    if (s_ != nullptr) (void)cudaStreamDestroy(s_);
    s_ = nullptr;
  }
  cudaStream_t s_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() = default;
  // Created with cudaEventDisableTiming: record + query cost ~0.5 us instead
  // of ~5 us with timing (PEERS.md).
  static absl::StatusOr<CudaEvent> Create();
  ~CudaEvent() { Reset(); }
  CudaEvent(CudaEvent&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& o) noexcept {
    if (this != &o) {
      Reset();
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  cudaEvent_t get() const { return e_; }

 private:
  explicit CudaEvent(cudaEvent_t e) : e_(e) {}
  void Reset() {
    if (e_ != nullptr) (void)cudaEventDestroy(e_);
    e_ = nullptr;
  }
  cudaEvent_t e_ = nullptr;
};

// Events CudaEvent::Create() made so far in this process (any thread). For
// tests: a steady workload must not keep creating events.
int64_t CudaEventsCreated();

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_CUDA_HANDLES_H_
