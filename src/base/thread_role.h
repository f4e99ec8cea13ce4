// Which role the current thread plays for the VM. VM threads must never block
// on the VM (a kernel calling Sync() would wait for itself).
#ifndef EAGERVM_BASE_THREAD_ROLE_H_
#define EAGERVM_BASE_THREAD_ROLE_H_

namespace eagervm::base {

enum class ThreadRole { kUser, kScheduler, kWorker };

ThreadRole CurrentThreadRole();
void SetCurrentThreadRole(ThreadRole role);
inline bool OnVmThread() { return CurrentThreadRole() != ThreadRole::kUser; }

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

#endif  // EAGERVM_BASE_THREAD_ROLE_H_
