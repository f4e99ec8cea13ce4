// Fork safety (docs/reliability.md): what survives fork() and what does not.
//
// The prepare handler drains the VM when the forking thread has submitted
// work (so the parent's tensors are computed, and no VM thread is mid-way
// through a shared structure), unless it runs on a VM thread (a kernel
// forking) or inside a capture, where waiting would deadlock. The child gets
// a fresh VM on first use: the parent's VM, its threads and its tensors stay
// behind (leaked, never touched): a tensor made before the fork is an error
// in the child (FailedPrecondition), dropping it is a no-op, and CUDA is
// refused there (the driver does not survive fork()).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_FORK_GUARD_H_
#define EAGERVM_VM_LIFECYCLE_FORK_GUARD_H_

#include <atomic>
#include <cstdint>

namespace eagervm::vm {

namespace internal_fork {
inline std::atomic<uint32_t> generation{0};  // +1 in the child of every fork()
inline thread_local bool submitted = false;  // this thread has submitted work
}  // namespace internal_fork

// Any thread, never blocks: how many fork()s lie between the first process
// and this one. Objects tied to the VM note it at creation.
inline uint32_t ForkGeneration() {
  return internal_fork::generation.load(std::memory_order_relaxed);
}
// Whoever submits (VmImpl::Receive): one thread-local store, the first time.
inline void NoteThreadSubmitted() {
  if (!internal_fork::submitted) [[unlikely]]
    internal_fork::submitted = true;
}
// Any thread; the first call registers the pthread_atfork handlers (once).
void InstallForkHandlers();

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_FORK_GUARD_H_
