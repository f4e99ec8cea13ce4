// StreamRegistry: the VM's streams. Creates each stream on first use with the
// policy its device's backend makes (BackendRegistry, filled by the
// composition root) and, for policies that do not run on the scheduler, the
// worker thread that serves it; looks streams up without a lock afterwards.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_STREAMS_STREAM_REGISTRY_H_
#define EAGERVM_VM_STREAMS_STREAM_REGISTRY_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/notifier.h"
#include "eagervm/memory_stats.h"
#include "eagervm/stream.h"
#include "vm/streams/backends.h"
#include "vm/streams/stream_worker.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::vm {

class VmContext;

class StreamRegistry {
 public:
  static constexpr int kMaxStreamsPerDevice = 64;
  static constexpr int kMaxCudaDevices = 16;

  // Installs the backends (InstallBackends, vm/streams/backends.h). `context` (the
  // owning VM) and `on_done` (told by workers of each finished instruction)
  // outlive the registry.
  StreamRegistry(VmContext* context, CompletionSignal* on_done);
  StreamRegistry(const StreamRegistry&) = delete;
  StreamRegistry& operator=(const StreamRegistry&) = delete;

  // Any thread. The runtime stream for `s`, created (with its worker) on
  // first use: one atomic load when it exists. Errors: index out of range,
  // device absent, no backend, Close()d.
  absl::StatusOr<VmStream*> Get(Stream s) {
    const int i = s.index();
    if (s.device().is_cpu() && i >= 0 && i < cpu_stream_count_) [[likely]] {
      if (VmStream* existing = cpu_streams_[i].load(std::memory_order_acquire)) return existing;
    }
    return GetSlow(s);
  }

  // Any thread, lock-free: the runtime stream for `s` if it was created,
  // else nullptr (creates nothing, never fails).
  VmStream* Find(Stream s) const {
    const int i = s.index();
    if (i < 0 || i >= kMaxStreamsPerDevice) return nullptr;
    if (s.device().is_cpu()) return cpu_streams_[i].load(std::memory_order_acquire);
    const int d = s.device().index();
    if (d < 0 || d >= kMaxCudaDevices) return nullptr;
    return cuda_streams_[d][i].load(std::memory_order_acquire);
  }

  // Any thread; take the registry lock.
  void ForEachAllocator(const std::function<void(memory::Allocator*)>& fn) const;
  uint64_t WorkerWakeups() const;
  std::vector<MemoryStats> MemoryByDevice() const;
  // No more streams; each worker finishes what it was handed, then exits.
  void Close();

 private:
  absl::StatusOr<VmStream*> GetSlow(Stream s);

  VmContext* context_;
  const int cpu_stream_count_;  // VmOptions::cpu_streams
  CompletionSignal* on_done_;
  BackendRegistry backends_;  // filled by the constructor, read-only afterwards

  mutable base::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::array<std::atomic<VmStream*>, kMaxStreamsPerDevice> cpu_streams_{};
  std::array<std::array<std::atomic<VmStream*>, kMaxStreamsPerDevice>, kMaxCudaDevices>
      cuda_streams_{};
  std::vector<std::unique_ptr<VmStream>> owned_streams_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<StreamWorker>> workers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAMS_STREAM_REGISTRY_H_
