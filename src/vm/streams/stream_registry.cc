#include "vm/streams/stream_registry.h"

#include <vector>

#include "base/log.h"
#include "base/str_cat.h"
#include "memory/memory_stats.h"
#include "vm/lifecycle/fork_guard.h"
#include "vm/streams/comm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::vm {

namespace {
struct BackendOverride {
  DeviceType type;
  int (*device_count)();
  StreamPolicyFactory factory;
};
std::vector<BackendOverride>& Overrides() {
  static auto* overrides = new std::vector<BackendOverride>();
  return *overrides;
}
}  // namespace

void OverrideBackendForTesting(DeviceType type, int (*device_count)(),
                               StreamPolicyFactory factory) {
  Overrides().push_back(BackendOverride{type, device_count, std::move(factory)});
}

StreamRegistry::StreamRegistry(VmContext* context, CompletionSignal* on_done)
    : context_(context), cpu_stream_count_(context->options().cpu_streams), on_done_(on_done) {
  InstallBackends(backends_);  // src/runtime/: the CPU and CUDA backends
  for (const BackendOverride& o : Overrides())
    backends_.Register(o.type, o.device_count, o.factory);
}

absl::StatusOr<VmStream*> StreamRegistry::GetSlow(Stream s) {
  const Device d = s.device();
  const int index = s.index();
  const VmOptions& options = context_->options();
  std::atomic<VmStream*>* slot = nullptr;
  if (d.is_cpu()) {
    // The comm stream (collectives) exists beyond the compute streams.
    if (index != kCommStreamIndex && index != kGraphStreamIndex &&
        (index < 0 || index >= options.cpu_streams)) {
      return absl::InvalidArgumentError(base::Cat(
          "stream index ", index, " on cpu is out of range: ", "VmOptions::cpu_streams is ",
          options.cpu_streams));
    }
    slot = &cpu_streams_[index];
  } else {
    if (ForkGeneration() != 0) {
      // Asked before the driver is touched: it may hang in a forked child.
      return absl::FailedPreconditionError(
          base::Cat("device ", d.ToString(),
                    " cannot be used in a process made by fork(): the CUDA "
                    "driver does not survive fork(); start the process with exec (posix_spawn, "
                    "subprocess) or use CUDA only in the parent (docs/reliability.md)"));
    }
    const int count = backends_.DeviceCount(d.type());  // CudaDeviceCount(), 0 without CUDA
    if (d.index() < 0 || d.index() >= kMaxCudaDevices || d.index() >= count) {
      return absl::FailedPreconditionError(base::Cat(
          "device ", d.ToString(), " is not available: CudaDeviceCount() is ", count,
          count == 0 ? " (no CUDA driver or GPU, or eagervm was built without CUDA)" : ""));
    }
    if (index < 0 || index >= kMaxStreamsPerDevice) {
      return absl::InvalidArgumentError(base::Cat("stream index ", index, " on ", d.ToString(),
                                                  " is out of range [0, ", kMaxStreamsPerDevice,
                                                  ")"));
    }
    slot = &cuda_streams_[d.index()][index];
  }
  if (VmStream* existing = slot->load(std::memory_order_acquire)) return existing;

  base::MutexLock lock(&mu_);
  if (VmStream* existing = slot->load(std::memory_order_acquire)) return existing;
  if (closed_) return absl::FailedPreconditionError("the eagervm VM has been shut down");
  const StreamPolicyFactory* factory = backends_.FindFactory(d.type());
  if (factory == nullptr) {
    return absl::FailedPreconditionError(
        base::Cat("device ", d.ToString(), " has no stream backend in this build"));
  }
  absl::StatusOr<std::unique_ptr<StreamPolicy>> made = (*factory)(s, *context_);
  if (!made.ok()) return made.status();
  std::unique_ptr<StreamPolicy> policy = std::move(made).value();
  StreamWorker* worker = nullptr;
  if (!policy->OnSchedulerThread()) {
    workers_.push_back(std::make_unique<StreamWorker>(
        index == kCommStreamIndex    ? base::Cat("evm-", d.is_cpu() ? "cpu" : "cuda", "-comm")
        : index == kGraphStreamIndex ? base::Cat("evm-", d.is_cpu() ? "cpu" : "cuda", "-graph")
                                     : base::Cat("evm-", d.is_cpu() ? "cpu" : "cuda", index),
        on_done_, options.spin_us * 1000));
    worker = workers_.back().get();
  }
  owned_streams_.push_back(std::make_unique<VmStream>(s, std::move(policy), worker, context_));
  VmStream* created = owned_streams_.back().get();
  slot->store(created, std::memory_order_release);
  EAGERVM_LOG(kDebug, "stream ", d.ToString(), "#", index, " created (",
              worker != nullptr ? "its own worker thread" : "runs on the scheduler thread", ")");
  return created;
}

void StreamRegistry::ForEachAllocator(const std::function<void(memory::Allocator*)>& fn) const {
  base::MutexLock lock(&mu_);
  for (const auto& s : owned_streams_) {
    fn(s->allocator());
    if (memory::Allocator* h = s->policy()->host_allocator()) fn(h);
  }
}

uint64_t StreamRegistry::WorkerWakeups() const {
  base::MutexLock lock(&mu_);
  uint64_t n = 0;
  for (const auto& t : workers_) n += t->wakeups();
  return n;
}

std::vector<MemoryStats> StreamRegistry::MemoryByDevice() const {
  base::MutexLock lock(&mu_);
  std::vector<const memory::Allocator*> allocators;
  for (const auto& st : owned_streams_) {
    allocators.push_back(st->allocator());
    if (const memory::Allocator* h = st->policy()->host_allocator()) allocators.push_back(h);
  }
  return memory::StatsByDevice(allocators);
}

void StreamRegistry::Close() {
  base::MutexLock lock(&mu_);
  closed_ = true;
  for (auto& t : workers_) t->Close();
  for (auto& st : owned_streams_) st->policy()->Close();
}

}  // namespace eagervm::vm
