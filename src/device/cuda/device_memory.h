// Device memory for CUDA streams: the stream-ordered allocator
// (cudaMallocFromPoolAsync / cudaFreeAsync) on one memory pool per device,
// behind memory::Allocator.
//
// Each CUDA stream has its own CudaStreamAllocator (DESIGN §5): memory is
// allocated and freed in that stream's order, so a block freed by a
// ReleaseTensor is reusable by the next instruction of the stream without a
// host wait; the pool makes cross-stream reuse safe by itself. The pool keeps
// freed memory cached (release threshold: unlimited) until Shrink()
// (VirtualMachine::EmptyCache) or an out-of-memory recovery trims it.
#ifndef EAGERVM_DEVICE_CUDA_DEVICE_MEMORY_H_
#define EAGERVM_DEVICE_CUDA_DEVICE_MEMORY_H_

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "absl/status/statusor.h"
#include "memory/allocator.h"

namespace eagervm::device::cuda {

// The memory pool and byte budget shared by the streams of one device.
class DeviceMemory {
 public:
  // The device's state, created on first use (never destroyed). Thread-safe.
  static absl::StatusOr<DeviceMemory*> Get(int device, int64_t limit_bytes);

  int device() const { return device_; }
  // nullptr when the device has no memory pools (then cudaMalloc/cudaFree).
  cudaMemPool_t pool() const { return pool_; }
  int64_t limit() const { return limit_; }
  // Reserves `bytes` against the limit (0 = unlimited); false if over it.
  bool TryReserve(int64_t bytes);
  void Unreserve(int64_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  // Waits for the device and returns the pool's unused memory to the driver.
  void Trim();

 private:
  DeviceMemory(int device, cudaMemPool_t pool, int64_t limit)
      : device_(device), pool_(pool), limit_(limit) {}
  const int device_;
  const cudaMemPool_t pool_;
  const int64_t limit_;
  std::atomic<int64_t> in_use_{0};
};

class CudaStreamAllocator final : public memory::Allocator {
 public:
  CudaStreamAllocator(DeviceMemory* memory, cudaStream_t stream);
  // On failure: trims the pool, retries once, then ResourceExhausted naming
  // the device, the bytes asked, in use and the limit. Must be called on the
  // thread that issues the stream's work (the allocation is stream-ordered).
  absl::StatusOr<void*> Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  void Shrink() override { memory_->Trim(); }
  MemoryStats GetStats() const override;

 private:
  absl::Status OutOfMemory(size_t bytes, const char* why) const;

  DeviceMemory* memory_;
  cudaStream_t stream_;
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> allocs_{0};
  std::atomic<int64_t> oom_recoveries_{0};
};

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_DEVICE_MEMORY_H_
