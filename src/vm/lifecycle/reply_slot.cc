#include "vm/lifecycle/reply_slot.h"

#include "base/log.h"
#include "base/str_cat.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm::vm {

absl::Status ReplySlot::Await(VmImpl& vm, const char* what) {
  const int64_t timeout_ms = vm.options().hang_timeout_ms;
  if (timeout_ms <= 0) {
    waiter_.Wait(vm.sync_spin_ns());
    return absl::OkStatus();
  }
  // Progress: instructions released, and those finished by workers that
  // have not told the scheduler yet (vm/streams/completion_signal.h).
  const auto progress = [&vm] {
    return vm.counters().finished.load(std::memory_order_relaxed) + vm.completions().unreported();
  };
  uint64_t seen = progress();
  int64_t spin_ns = vm.sync_spin_ns();
  for (;;) {
    if (waiter_.WaitFor(spin_ns, timeout_ms * 1'000'000)) return absl::OkStatus();
    spin_ns = 0;
    // Progress elsewhere in the VM: this result is only queued behind it.
    const uint64_t now = progress();
    if (now != seen) {
      seen = now;
      continue;
    }
    int expected = kOpen;
    if (!state_.compare_exchange_strong(expected, kAbandoned, std::memory_order_acq_rel)) {
      waiter_.Wait(0);  // claimed meanwhile: the result is being delivered
      return absl::OkStatus();
    }
    const std::string dump = vm.DumpState(/*max_instructions=*/200);
    EAGERVM_LOG(kWarning, what, ": no instruction finished for ", timeout_ms,
                " ms (VmOptions::hang_timeout_ms); the VM:\n", dump);
    return absl::DeadlineExceededError(base::Cat(
        what, ": no instruction finished anywhere in the VM for ", timeout_ms,
        " ms (VmOptions::hang_timeout_ms / EAGERVM_HANG_TIMEOUT_MS). The work stays queued: call ",
        what, " again to keep waiting. What the VM is doing:\n", dump));
  }
}

}  // namespace eagervm::vm
