// Device memory for CUDA streams: the stream-ordered allocator
// (cudaMallocFromPoolAsync / cudaFreeAsync) on one memory pool per device,
// behind memory::Allocator.
//
// Each CUDA stream has its own CudaStreamAllocator: memory is
// allocated and freed in that stream's order, so a block freed by a
// ReleaseTensor is reusable by the next instruction of the stream without a
// host wait; the pool makes cross-stream reuse safe by itself. The pool keeps
// freed memory cached up to a release threshold of a quarter of the device's
// memory (beyond it the driver returns memory at synchronisation points, so
// other libraries in the process are not starved); Shrink()
// (VirtualMachine::EmptyCache) and out-of-memory recovery trim it to zero.
//
// Which stream a free is ordered on: the stream that runs the release
// (ScopedFreeStream, set by CudaStreamPolicy::Run), which is the one that
// waited for the blob's readers; the allocating stream only outside Run()
// (drops after Shutdown, when no work is left).
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
  // (A negative limit is rejected by Get and by VirtualMachine::Configure.)
  bool TryReserve(int64_t bytes);
  void Unreserve(int64_t bytes) {
    in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    frees_.fetch_add(1, std::memory_order_relaxed);  // a count only: Trim reads no data by it
  }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  // Waits for the device and returns the pool's unused memory to the driver;
  // nothing to do (and no device wait) when nothing was freed since the last
  // Trim: EmptyCache() calls it once per stream of the device.
  void Trim();

 private:
  DeviceMemory(int device, cudaMemPool_t pool, int64_t limit)
      : device_(device), pool_(pool), limit_(limit) {}
  const int device_;
  const cudaMemPool_t pool_;
  const int64_t limit_;
  std::atomic<int64_t> in_use_{0};
  std::atomic<uint64_t> frees_{0};                  // Unreserve()s so far
  std::atomic<uint64_t> trimmed_at_{~uint64_t{0}};  // frees_ when the last Trim began
};

// While alive, device memory of `device` that this thread frees through a
// CudaStreamAllocator is freed in the order of `stream` instead of the
// allocating stream. Thread-local; scopes nest (the innermost wins).
class ScopedFreeStream {
 public:
  ScopedFreeStream(int device, cudaStream_t stream);
  ~ScopedFreeStream();
  ScopedFreeStream(const ScopedFreeStream&) = delete;
  ScopedFreeStream& operator=(const ScopedFreeStream&) = delete;
  // The stream to free memory of `device` on: the innermost scope's if it is
  // for `device`, else `fallback`.
  static cudaStream_t For(int device, cudaStream_t fallback);

 private:
  int device_;
  cudaStream_t stream_;
  const ScopedFreeStream* outer_;
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
