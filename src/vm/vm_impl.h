// VmImpl: the virtual machine behind VirtualMachine: options, streams and
// their threads, the pending list, the scheduler thread, errors and shutdown.
#ifndef EAGERVM_VM_VM_IMPL_H_
#define EAGERVM_VM_VM_IMPL_H_

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/notifier.h"
#include "memory/device_memory_budget.h"
#include "eagervm/stream.h"
#include "eagervm/virtual_machine.h"
#include "vm/backends.h"
#include "vm/engine.h"
#include "vm/error_record.h"
#include "vm/instruction.h"
#include "vm/thread_ctx.h"
#include "vm/vm_context.h"
#include "vm/vm_counters.h"
#include "vm/vm_stream.h"

namespace eagervm::vm {

// Whether Receive may wait for back-pressure. Releases never wait: they come
// from destructors on any thread and only ever lower the memory in use.
enum class Backpressure { kWait, kNoWait };

class VmImpl final : public VmContext {
 public:
  static constexpr int kMaxStreamsPerDevice = 64;
  static constexpr int kMaxCudaDevices = 16;

  // Installs the backends (InstallBackends, vm/backends.h) into its registry.
  explicit VmImpl(VmOptions options);
  ~VmImpl() override;  // Shutdown()
  VmImpl(const VmImpl&) = delete;
  VmImpl& operator=(const VmImpl&) = delete;

  const VmOptions& options() const override { return options_; }
  VmCounters& counters() { return counters_; }

  // Any thread. The runtime stream for `s`, created (with its worker) on first use.
  absl::StatusOr<VmStream*> GetStream(Stream s);
  // Any thread; the builders' only way in (EagerBuilder::Finish). Appends
  // `list` to the pending list (one lock) and wakes the scheduler only if the
  // list was empty. Blocks for back-pressure unless called on a VM thread or
  // with kNoWait. FailedPrecondition after shutdown (the list is discarded).
  absl::Status Receive(InstructionList* list, Backpressure backpressure);

  // Blocking waits (user threads; vm::CheckMayBlock first).
  // Waits until every instruction received before it is released.
  absl::Status WaitAll();
  // WaitAll(), then TakeUnreportedErrors().
  absl::Status Sync();
  // Any thread, never blocks: the first runtime error that no sync point has
  // reported yet (noting how many more there are); each counts as reported now.
  absl::Status TakeUnreportedErrors();

  // VmContext.
  void RecordError(const ErrorPtr& e) override;
  std::shared_ptr<memory::DeviceMemoryBudget> cpu_budget() const override { return cpu_budget_; }
  int64_t sync_spin_ns() const { return options_.spin_us * 1000; }
  // Backends whose completions nobody reports (CUDA events) notify this to
  // make the scheduler run a pass.
  base::Notifier* scheduler_notifier() override { return &scheduler_notifier_; }

  VmStats GetStats() const;
  void ForEachAllocator(const std::function<void(memory::Allocator*)>& fn) const;
  absl::Status Shutdown();
  bool shut_down() const { return shut_down_.load(std::memory_order_acquire); }

 private:
  void SchedulerLoop();
  void DrainOnThisThread();  // synchronous mode
  bool SchedulePass();
  absl::Status WaitForBackpressure();
  bool BackpressureCheckDue(size_t n) const;
  absl::Status AppendPending(InstructionList* list);

  const VmOptions options_;
  VmCounters counters_;
  Engine engine_{&counters_, options_.inline_max_bytes};
  base::Notifier scheduler_notifier_;

  base::Mutex pending_mu_;
  InstructionList pending_ ABSL_GUARDED_BY(pending_mu_);
  bool accepting_ ABSL_GUARDED_BY(pending_mu_) = true;
  InstructionList incoming_;   // scheduler thread only

  base::Mutex engine_mu_;  // synchronous mode: who drives the engine

  // The CPU device's memory, shared by the allocators of all CPU streams.
  std::shared_ptr<memory::DeviceMemoryBudget> cpu_budget_;
  BackendRegistry backends_;  // filled by the constructor, read-only afterwards

  mutable base::Mutex streams_mu_;
  std::array<std::atomic<VmStream*>, kMaxStreamsPerDevice> cpu_streams_{};
  std::array<std::array<std::atomic<VmStream*>, kMaxStreamsPerDevice>, kMaxCudaDevices> cuda_streams_{};
  std::vector<std::unique_ptr<VmStream>> owned_streams_ ABSL_GUARDED_BY(streams_mu_);
  std::vector<std::unique_ptr<ThreadCtx>> thread_ctxs_ ABSL_GUARDED_BY(streams_mu_);

  base::Mutex error_mu_;
  std::deque<ErrorPtr> unreported_ ABSL_GUARDED_BY(error_mu_);

  base::Mutex bp_mu_;
  base::CondVar bp_cv_;
  std::atomic<int> bp_waiters_{0};

  std::atomic<bool> shut_down_{false};
  base::Mutex shutdown_mu_;
  std::thread scheduler_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_VM_IMPL_H_
