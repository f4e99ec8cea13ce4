// Which role the current thread plays for the VM. VM threads must never block
// on the VM (a kernel calling Sync() would wait for itself).
#ifndef EAGERVM_BASE_THREAD_ROLE_H_
#define EAGERVM_BASE_THREAD_ROLE_H_

#include <string>

#include "base/check.h"

namespace eagervm::base {

enum class ThreadRole { kUser, kScheduler, kWorker };

namespace internal_thread_role {
extern constinit thread_local ThreadRole t_role;
extern constinit thread_local bool t_vm_owned;
}  // namespace internal_thread_role

// Inline (a constinit thread-local, no TLS wrapper call): checked on every
// op's path and by every blocking call.
inline ThreadRole CurrentThreadRole() { return internal_thread_role::t_role; }
inline void SetCurrentThreadRole(ThreadRole role) { internal_thread_role::t_role = role; }
const char* ToString(ThreadRole role);
// The message of a failed EAGERVM_DCHECK_THREAD_ROLE.
std::string WrongThreadRoleMessage(ThreadRole expected);
inline bool OnVmThread() { return CurrentThreadRole() != ThreadRole::kUser; }

// Threads the VM created and owns for their whole life (the scheduler, a
// backend's own threads), as opposed to a user thread that plays a VM role
// for a while (ScopedThreadRole). Backends may leave per-thread device state
// (a current device, a capture mode) on owned threads, never on user threads.
// Marked once by the thread itself, at its start.
inline bool IsVmOwnedThread() { return internal_thread_role::t_vm_owned; }
inline void MarkVmOwnedThread() { internal_thread_role::t_vm_owned = true; }

// Marks the current thread as running VM work for the lifetime of the scope
// (used by the synchronous mode, which computes on the submitting thread).
class ScopedThreadRole {
 public:
  explicit ScopedThreadRole(ThreadRole role) : previous_(CurrentThreadRole()) {
    SetCurrentThreadRole(role);
  }
  ~ScopedThreadRole() { SetCurrentThreadRole(previous_); }
  ScopedThreadRole(const ScopedThreadRole&) = delete;
  ScopedThreadRole& operator=(const ScopedThreadRole&) = delete;

 private:
  ThreadRole previous_;
};

}  // namespace eagervm::base

// Debug and sanitizer builds (base/check.h): aborts unless the calling thread
// plays `role` (a ThreadRole enumerator, e.g. kScheduler). Scheduler-only
// code asserts this at its entry points; the synchronous mode's drain and
// tests that drive an Engine directly hold a ScopedThreadRole(kScheduler).
#define EAGERVM_DCHECK_THREAD_ROLE(role)                                                    \
  EAGERVM_DCHECK(::eagervm::base::CurrentThreadRole() == ::eagervm::base::ThreadRole::role, \
                 ::eagervm::base::WrongThreadRoleMessage(::eagervm::base::ThreadRole::role))

#endif  // EAGERVM_BASE_THREAD_ROLE_H_
