#include "base/thread_role.h"

namespace eagervm::base {
namespace internal_thread_role {
constinit thread_local ThreadRole t_role = ThreadRole::kUser;
constinit thread_local bool t_vm_owned = false;
}  // namespace internal_thread_role

const char* ToString(ThreadRole role) {
  switch (role) {
    case ThreadRole::kUser:
      return "user";
    case ThreadRole::kScheduler:
      return "scheduler";
    case ThreadRole::kWorker:
      return "worker";
  }
  return "?";
}

std::string WrongThreadRoleMessage(ThreadRole expected) {
  return std::string("must run on a ") + ToString(expected) + " thread, but runs on a " +
         ToString(CurrentThreadRole()) + " thread";
}
}  // namespace eagervm::base
