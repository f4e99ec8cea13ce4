#include "vm/lifecycle/fork_guard.h"

#include <pthread.h>

#include <mutex>

#include "base/thread_role.h"
#include "vm/engine/instruction_pool.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm::vm {
namespace {

// Runs in the forking thread before fork(). Drains only where waiting is
// safe and useful: this thread submitted work (its tensors then are computed
// in the child's copy) and it is not a VM thread or inside a capture (then
// WaitAll refuses at once rather than wait for itself).
void Prepare() {
  VmImpl* vm = internal_vm::g_process_vm.load(std::memory_order_acquire);
  if (vm != nullptr && internal_fork::submitted && !base::OnVmThread() && !vm->shut_down() &&
      vm->fork_generation() == ForkGeneration()) {
    (void)vm->WaitAll();  // a runtime error stays recorded for the parent's next sync
  }
  internal_vm::LockConfigForFork();
  InstructionPool::LockForFork();
}

void Parent() {
  InstructionPool::UnlockAfterFork();
  internal_vm::UnlockConfigAfterFork();
}

// One thread, the copy of the forking one. The parent's VM is left behind
// (its threads do not exist here); the next op makes a fresh one.
void Child() {
  InstructionPool::UnlockAfterFork();
  internal_vm::UnlockConfigAfterFork();
  internal_fork::generation.fetch_add(1, std::memory_order_relaxed);
  internal_fork::submitted = false;
  internal_vm::g_process_vm.store(nullptr, std::memory_order_release);
  // A kernel that forked: its copy is an ordinary user thread of the child.
  base::SetCurrentThreadRole(base::ThreadRole::kUser);
}

}  // namespace

void InstallForkHandlers() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(Prepare, Parent, Child); });
}

}  // namespace eagervm::vm
