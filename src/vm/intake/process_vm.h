// The process's VM, for the front door: code on user threads that builds and
// submits instructions (the builders, host reads, Sync). Code that runs on VM
// threads (instruction and stream policies) never uses it: it gets its
// VmContext from the stream it runs on.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_PROCESS_VM_H_
#define EAGERVM_VM_INTAKE_PROCESS_VM_H_

#include <atomic>
#include <string_view>

#include "absl/status/statusor.h"
#include "eagervm/stream.h"

namespace eagervm::vm {

class VmImpl;
class VmStream;

namespace internal_vm {
// Set when the VM is first reached here; the VM is never destroyed. Reset in
// the child of a fork() (fork_guard.cc): the next op makes the child's VM.
extern std::atomic<VmImpl*> g_process_vm;
VmImpl& CreateProcessVm();  // VirtualMachine::Get(), then g_process_vm
// The fork handlers (fork_guard.cc) hold VirtualMachine's configuration lock
// across fork(), so the child never inherits it locked.
void LockConfigForFork();
void UnlockConfigAfterFork();
}  // namespace internal_vm

// Any thread. Creates the VM on first use (VirtualMachine::Get()); after
// that one load, on every op's path.
inline VmImpl& ProcessVm() {
  if (VmImpl* vm = internal_vm::g_process_vm.load(std::memory_order_acquire)) [[likely]] {
    return *vm;
  }
  return internal_vm::CreateProcessVm();
}
// Any thread. The runtime stream for `s` (created on first use), or an error
// naming `op`: the VM was shut down, the device is absent, the index is out of range.
absl::StatusOr<VmStream*> ResolveStream(Stream s, std::string_view op);
// The same; `op` is measured only if it fails (a thread's last stream is
// cached, and strlen on every op's path costs more than the lookup).
absl::StatusOr<VmStream*> ResolveStream(Stream s, const char* op);
// Any thread. OK if the calling thread may block on the VM; otherwise a
// FailedPrecondition naming `what` (on a VM thread it would wait for itself;
// inside a PhysicalRun build callback, for instructions not yet submitted).
absl::Status CheckMayBlock(const char* what);

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_PROCESS_VM_H_
