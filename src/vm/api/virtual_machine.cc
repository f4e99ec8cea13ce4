// The public VirtualMachine: a lazily created process-wide singleton that is
// drained and joined at exit, and never destroyed (tensors may be dropped
// during static destruction, after it shut down).
#include "eagervm/virtual_machine.h"

#include <cstdlib>
#include <limits>
#include <ostream>

#include "base/mutex.h"
#include "base/str_cat.h"
#include "eagervm/tensor.h"
#include "profiler/env_trace.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/fork_guard.h"
#include "vm/lifecycle/vm_impl.h"
#include "vm/lifecycle/vm_options_env.h"
#include "vm/tensor_impl.h"

namespace eagervm {
namespace {

base::Mutex config_mu;
VmOptions* configured ABSL_GUARDED_BY(config_mu) = nullptr;
std::atomic<VirtualMachine*> instance{nullptr};

absl::Status OutOfRange(const char* field, int64_t value, int64_t lo, int64_t hi,
                        const char* meaning = "") {
  return absl::InvalidArgumentError(base::Cat("VmOptions::", field, " must be in [", lo, ", ", hi,
                                              "]", meaning, ", got ", value));
}

// Every numeric field, with the ranges of its EAGERVM_* variable
// (vm/lifecycle/vm_options_env.cc): an option Configure accepts is one the environment
// could have given. Upper bounds keep the durations from overflowing a
// deadline and the byte counts from turning into size_t wrap-arounds.
absl::Status ValidateOptions(const VmOptions& o) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  struct Field {
    const char* name;
    int64_t value, lo, hi;
    const char* meaning;
  };
  const Field fields[] = {
      {"cpu_streams", o.cpu_streams, 1, vm::VmImpl::kMaxStreamsPerDevice, ""},
      {"inline_max_bytes", o.inline_max_bytes, 0, kMax, " (0 = never inline)"},
      {"donate_max_bytes", o.donate_max_bytes, 0, kMax, " (0 = never donate)"},
      {"handoff_min_gap_us", o.handoff_min_gap_us, 0, 1'000'000'000, " (0 = always hand off)"},
      {"run_ahead_max_bytes", o.run_ahead_max_bytes, 0, kMax, " (0 = unbounded)"},
      {"max_in_flight", o.max_in_flight, 2, kMax, ""},
      {"spin_us", o.spin_us, 0, 1'000'000, " (0 = park at once)"},
      {"cpu_memory_limit", o.cpu_memory_limit, 0, kMax, " (0 = unlimited)"},
      {"cuda_memory_limit", o.cuda_memory_limit, 0, kMax, " (0 = unlimited)"},
      {"oom_wait_ms", o.oom_wait_ms, 0, 3'600'000, ""},
      {"hang_timeout_ms", o.hang_timeout_ms, 0, 86'400'000, " (0 = off)"},
  };
  for (const Field& f : fields) {
    if (f.value < f.lo || f.value > f.hi) return OutOfRange(f.name, f.value, f.lo, f.hi, f.meaning);
  }
  return absl::OkStatus();
}

}  // namespace

VirtualMachine::VirtualMachine(VmOptions opts) : impl_(new vm::VmImpl(std::move(opts))) {}

vm::VmImpl& VirtualMachine::impl() const {
  vm::VmImpl* vm = impl_.load(std::memory_order_acquire);
  if (vm->fork_generation() == vm::ForkGeneration()) [[likely]]
    return *vm;
  return Renew();
}

// The child of a fork(): the parent's VM has no threads here. It is leaked,
// not destroyed (its destructor would join threads that do not exist).
vm::VmImpl& VirtualMachine::Renew() const {
  base::MutexLock lock(&config_mu);
  vm::VmImpl* old = impl_.load(std::memory_order_acquire);
  if (old->fork_generation() == vm::ForkGeneration()) return *old;
  auto* fresh = new vm::VmImpl(old->options());
  impl_.store(fresh, std::memory_order_release);
  return *fresh;
}

namespace vm::internal_vm {
void LockConfigForFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { config_mu.Lock(); }
void UnlockConfigAfterFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { config_mu.Unlock(); }
}  // namespace vm::internal_vm

VirtualMachine& VirtualMachine::Get() {
  if (VirtualMachine* vm = instance.load(std::memory_order_acquire)) return *vm;
  base::MutexLock lock(&config_mu);
  if (VirtualMachine* vm = instance.load(std::memory_order_acquire)) return *vm;
  VmOptions opts = vm::ResolveVmOptions(configured);  // EAGERVM_* read here, once
  auto* vm = new VirtualMachine(std::move(opts));     // never destroyed; see the file comment
  instance.store(vm, std::memory_order_release);
  vm::InstallForkHandlers();
  profiler::StartEnvTrace();
  std::atexit([] { (void)VirtualMachine::Get().Shutdown(); });
  return *vm;
}

absl::Status VirtualMachine::Configure(VmOptions opts) {
  absl::Status s = ValidateOptions(opts);
  if (!s.ok()) return s;
  base::MutexLock lock(&config_mu);
  if (instance.load(std::memory_order_acquire) != nullptr) {
    return absl::FailedPreconditionError(
        "VirtualMachine::Configure must be called before the VM is first used");
  }
  delete configured;
  configured = new VmOptions(std::move(opts));
  return absl::OkStatus();
}

const VmOptions& VirtualMachine::options() const { return impl().options(); }
VmStats VirtualMachine::GetStats() const {
  VmStats s = impl().GetStats();
  s.contiguous_copies = internal::ContiguousCopies();
  return s;
}
absl::Status VirtualMachine::Shutdown() {
  vm::VmImpl* vm = impl_.load(std::memory_order_acquire);
  // A forked child that never used the VM has nothing to shut down (the
  // parent's VM is the parent's): do not start one to stop it.
  if (vm->fork_generation() != vm::ForkGeneration()) return absl::OkStatus();
  absl::Status s = vm->Shutdown();
  // After the VM threads are joined: their events are complete.
  if (vm->shut_down()) profiler::FinishEnvTrace();
  return s;
}
bool VirtualMachine::IsShutDown() const { return impl().shut_down(); }
std::string VirtualMachine::DumpState() const { return impl().DumpState(/*max_instructions=*/200); }

absl::Status VirtualMachine::EmptyCache() {
  if (IsShutDown()) {
    return absl::FailedPreconditionError("EmptyCache(): the eagervm VM has been shut down");
  }
  // Sync(), with the caches shrunk between the wait and the error report: a
  // runtime error is returned, and the memory is given back all the same.
  absl::Status s = vm::CheckMayBlock("VirtualMachine::EmptyCache()");
  if (s.ok()) s = impl().WaitAll();
  if (!s.ok()) return s;
  impl().ForEachAllocator([](memory::Allocator* a) { a->Shrink(); });
  return impl().TakeUnreportedErrors();
}

absl::Status Sync() {
  VirtualMachine& vm = VirtualMachine::Get();
  if (vm.IsShutDown()) {
    return absl::FailedPreconditionError("Sync(): the eagervm VM has been shut down");
  }
  return vm::ProcessVm().Sync();
}

std::string VmStats::ToString() const {
  std::string s = base::Cat(
      "VmStats{received=", received, " dispatched=", dispatched, " finished=", finished,
      " failed=", failed, " batched=", batched, " inlined=", inlined, " donated=", donated,
      " barriers=", barriers, " in_flight=", in_flight, " peak_in_flight=", peak_in_flight,
      " scheduler_wakeups=", scheduler_wakeups, " worker_wakeups=", worker_wakeups,
      " backpressure_waits=", backpressure_waits, " run_ahead_waits=", run_ahead_waits,
      " contiguous_copies=", contiguous_copies, " instructions_allocated=", instructions_allocated);
  for (const MemoryStats& m : memory) {
    s += base::Cat(" ", m.device.ToString(), "{in_use=", m.bytes_in_use,
                   " peak=", m.peak_bytes_in_use, " reserved=", m.bytes_reserved,
                   " system_allocs=", m.system_allocs, " hits=", m.cache_hits,
                   " misses=", m.cache_misses, " oom_recoveries=", m.oom_recoveries,
                   " oom_failures=", m.oom_failures, "}");
  }
  return s + "}";
}
std::ostream& operator<<(std::ostream& os, const VmStats& s) { return os << s.ToString(); }

// Every field, in declaration order: env_options.cc compares printed options
// to see which EAGERVM_* variable Configure() overrode, and env_test compares
// them to check the registry's defaults.
std::ostream& operator<<(std::ostream& os, const VmOptions& o) {
  return os << "VmOptions{cpu_streams=" << o.cpu_streams
            << " compute_on_scheduler_thread=" << o.compute_on_scheduler_thread
            << " inline_max_bytes=" << o.inline_max_bytes
            << " donate_max_bytes=" << o.donate_max_bytes
            << " handoff_min_gap_us=" << o.handoff_min_gap_us
            << " run_ahead_max_bytes=" << o.run_ahead_max_bytes << " synchronous=" << o.synchronous
            << " cuda_memory_limit=" << o.cuda_memory_limit << " max_in_flight=" << o.max_in_flight
            << " spin_us=" << o.spin_us << " cpu_memory_limit=" << o.cpu_memory_limit
            << " oom_wait_ms=" << o.oom_wait_ms << " hang_timeout_ms=" << o.hang_timeout_ms
            << " collectives_on_caller=" << o.collectives_on_caller
            << " strict_dtypes=" << o.strict_dtypes << "}";
}

}  // namespace eagervm
