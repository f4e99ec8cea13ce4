// The process VM (process_vm.h) and stream resolution with the thread's
// cache of its last streams (last_stream.h), for the front door's user threads.
#include "vm/intake/process_vm.h"

#include "base/str_cat.h"
#include "base/thread_role.h"
#include "eagervm/virtual_machine.h"
#include "vm/intake/last_stream.h"
#include "vm/intake/physical_run.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm::vm {

namespace internal_vm {
std::atomic<VmImpl*> g_process_vm{nullptr};
VmImpl& CreateProcessVm() {
  VmImpl* vm = &VirtualMachine::Get().impl();
  g_process_vm.store(vm, std::memory_order_release);
  return *vm;
}
}  // namespace internal_vm

namespace internal_run {
constinit thread_local LastStream t_last_stream[kLastStreamSlots];
}  // namespace internal_run

absl::StatusOr<VmStream*> ResolveStream(Stream s, std::string_view op) {
  if (VmStream* cached = LastResolvedStream(s)) [[likely]]
    return cached;
  VmImpl& vm = ProcessVm();
  if (vm.shut_down()) {
    return absl::FailedPreconditionError(
        base::Cat(op, ": the eagervm VM has been shut down; no more work is accepted"));
  }
  absl::StatusOr<VmStream*> stream = vm.GetStream(s);
  if (!stream.ok()) {
    return absl::Status(stream.status().code(), base::Cat(op, ": ", stream.status().message()));
  }
  internal_run::LastStreamSlot(s) = internal_run::LastStream{&vm, s.device(), s.index(), *stream};
  return stream;
}

absl::StatusOr<VmStream*> ResolveStream(Stream s, const char* op) {
  if (VmStream* cached = LastResolvedStream(s)) [[likely]]
    return cached;
  return ResolveStream(s, std::string_view(op));  // names the op only when it fails
}

absl::Status CheckMayBlock(const char* what) {
  if (base::OnVmThread()) {
    return absl::FailedPreconditionError(base::Cat(
        what,
        " was called on an eagervm VM thread (inside a kernel or callback); it would wait "
        "for itself. Blocking calls are for user threads only"));
  }
  if (internal_run::t_eager != nullptr) {
    return absl::FailedPreconditionError(
        base::Cat(what,
                  " was called inside a PhysicalRun build callback; it would wait for instructions "
                  "that are submitted only when the callback returns"));
  }
  return absl::OkStatus();
}

}  // namespace eagervm::vm
