#include "device/cpu/cpu_backend.h"

#include <chrono>

#include "device/cpu/cpu_stream_policy.h"
#include "memory/caching_allocator.h"
#include "memory/memory_backend.h"
#include "vm/streams/comm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::device {

absl::StatusOr<std::unique_ptr<vm::StreamPolicy>> MakeCpuStreamPolicy(Stream stream,
                                                                      vm::VmContext& context) {
  const VmOptions& options = context.options();
  // A collective blocks until every rank joins: the comm stream keeps its
  // own worker even when compute runs on the scheduler (vm/streams/comm_stream.h).
  const bool inline_compute = options.synchronous || (options.compute_on_scheduler_thread &&
                                                      stream.index() != vm::kCommStreamIndex);
  memory::CachingAllocatorOptions alloc_options;
  // Inline compute: no other VM thread can free memory while this one waits.
  alloc_options.oom_wait = std::chrono::milliseconds(inline_compute ? 0 : options.oom_wait_ms);
  return std::make_unique<CpuStreamPolicy>(
      std::make_unique<memory::CachingAllocator>(context.cpu_budget(), memory::DefaultHostBackend(),
                                                 alloc_options),
      inline_compute);
}

}  // namespace eagervm::device
