#include "device/cuda/device_memory.h"

#include <array>

#include "base/mutex.h"
#include "base/str_cat.h"
#include "device/cuda/cuda_status.h"
#include "device/cuda/scoped_device.h"

namespace eagervm::device::cuda {
namespace {

constexpr int kMaxDevices = 16;
alignas(64) char zero_size_sentinel[64];

base::Mutex devices_mu;
std::array<DeviceMemory*, kMaxDevices> devices ABSL_GUARDED_BY(devices_mu) = {};  // leaked

absl::StatusOr<cudaMemPool_t> CreatePool(int device) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  // Keep freed memory in the pool (a caching allocator), but not all of it:
  // above a quarter of the device's memory the driver gives cached memory
  // back at synchronisation points, so cuBLAS workspaces, other libraries
  // and the user's own cudaMalloc can still get memory while eagervm is idle.
  // Trim() (EmptyCache, OOM recovery) gives back everything on demand.
  size_t free_bytes = 0, total_bytes = 0;
  {
    ScopedDevice on(device);
    if (!on.status().ok()) return on.status();
    EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  }
  uint64_t threshold = total_bytes / 4;
  cudaMemPool_t pool = nullptr;
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemPoolCreate(&pool, &props));
  cudaError_t e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  if (e != cudaSuccess) {
    (void)cudaMemPoolDestroy(pool);
    return CudaStatus(e, "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
  }
  return pool;
}

thread_local const ScopedFreeStream* free_scope = nullptr;

}  // namespace

ScopedFreeStream::ScopedFreeStream(int device, cudaStream_t stream)
    : device_(device), stream_(stream), outer_(free_scope) {
  free_scope = this;
}

ScopedFreeStream::~ScopedFreeStream() { free_scope = outer_; }

cudaStream_t ScopedFreeStream::For(int device, cudaStream_t fallback) {
  const ScopedFreeStream* s = free_scope;
  return s != nullptr && s->device_ == device ? s->stream_ : fallback;
}

absl::StatusOr<DeviceMemory*> DeviceMemory::Get(int device, int64_t limit_bytes) {
  if (device < 0 || device >= kMaxDevices) {
    return absl::InvalidArgumentError(base::Cat("cuda:", device, " is out of range"));
  }
  if (limit_bytes < 0) {
    return absl::InvalidArgumentError(
        base::Cat("VmOptions::cuda_memory_limit must be >= 0 (0 = unlimited), got ", limit_bytes));
  }
  base::MutexLock lock(&devices_mu);
  if (devices[device] == nullptr) {
    // Without memory-pool support (old driver, some virtualised GPUs) fall
    // back to cudaMalloc/cudaFree: correct (cudaFree synchronises), slower.
    absl::StatusOr<cudaMemPool_t> pool = CreatePool(device);
    if (!pool.ok()) (void)cudaGetLastError();
    devices[device] = new DeviceMemory(device, pool.ok() ? *pool : nullptr, limit_bytes);
  }
  return devices[device];
}

bool DeviceMemory::TryReserve(int64_t bytes) {
  const int64_t now = in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (limit_ > 0 && now > limit_) {
    in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void DeviceMemory::Trim() {
  // A free that races with this (counted after the load) is trimmed next time.
  const uint64_t frees = frees_.load(std::memory_order_relaxed);
  if (trimmed_at_.load(std::memory_order_relaxed) == frees) return;
  trimmed_at_.store(frees, std::memory_order_relaxed);
  // Frees enqueued with cudaFreeAsync return to the pool only once the device
  // reached them; wait for that, then release what is unused.
  ScopedDevice on(device_);  // restores the caller's device (a user thread in EmptyCache)
  if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
  if (pool_ != nullptr && cudaMemPoolTrimTo(pool_, 0) != cudaSuccess) (void)cudaGetLastError();
}

CudaStreamAllocator::CudaStreamAllocator(DeviceMemory* memory, cudaStream_t stream)
    : memory_(memory), stream_(stream) {}

absl::Status CudaStreamAllocator::OutOfMemory(size_t bytes, const char* why) const {
  return absl::ResourceExhaustedError(base::Cat(
      "out of memory on cuda:", memory_->device(), ": asked for ", bytes, " bytes with ",
      memory_->in_use(), " in use",
      memory_->limit() > 0 ? base::Cat(" and a limit of ", memory_->limit()) : "", " (", why, ")"));
}

absl::StatusOr<void*> CudaStreamAllocator::Allocate(size_t bytes) {
  if (bytes == 0) return static_cast<void*>(zero_size_sentinel);
  const auto n = static_cast<int64_t>(bytes);
  if (!memory_->TryReserve(n)) {
    // The limit counts live tensors; nothing but a release can lower it, and
    // releases are instructions this one may not wait for.
    return OutOfMemory(bytes, "VmOptions::cuda_memory_limit");
  }
  void* p = nullptr;
  auto malloc = [&] {
    return memory_->pool() != nullptr ? cudaMallocFromPoolAsync(&p, bytes, memory_->pool(), stream_)
                                      : cudaMalloc(&p, bytes);
  };
  cudaError_t e = malloc();
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    // Recovery: wait for in-flight frees, trim every cached block, retry.
    oom_recoveries_.fetch_add(1, std::memory_order_relaxed);
    memory_->Trim();
    e = malloc();
  }
  if (e != cudaSuccess) {
    memory_->Unreserve(n);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return OutOfMemory(bytes, "the device is full");
    }
    return CudaStatus(e, "cudaMallocFromPoolAsync");
  }
  allocs_.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = in_use_.fetch_add(n, std::memory_order_relaxed) + n;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void CudaStreamAllocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr || ptr == zero_size_sentinel) return;
  // Stream-ordered: the block is free once the stream reaches this point. An
  // error here (runtime unloading at exit) leaves nothing to do.
  // On the stream that runs the release when there is one (it made the
  // device waits for readers on other streams; the allocating stream did
  // not), else on the allocating stream.
  cudaError_t e = memory_->pool() != nullptr
                      ? cudaFreeAsync(ptr, ScopedFreeStream::For(memory_->device(), stream_))
                      : cudaFree(ptr);  // synchronises the device: safe without stream order
  if (e != cudaSuccess) (void)cudaGetLastError();
  const auto n = static_cast<int64_t>(bytes);
  in_use_.fetch_sub(n, std::memory_order_relaxed);
  memory_->Unreserve(n);
}

MemoryStats CudaStreamAllocator::GetStats() const {
  MemoryStats s;
  s.device = Device::Cuda(memory_->device());
  s.bytes_in_use = in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  s.bytes_reserved = s.bytes_in_use;
  s.system_allocs = allocs_.load(std::memory_order_relaxed);
  s.cache_misses = s.system_allocs;
  s.oom_recoveries = oom_recoveries_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace eagervm::device::cuda
