#include "base/thread_role.h"

namespace eagervm::base {
namespace {
thread_local ThreadRole current_role = ThreadRole::kUser;
}
ThreadRole CurrentThreadRole() { return current_role; }
void SetCurrentThreadRole(ThreadRole role) { current_role = role; }

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
         ToString(current_role) + " thread";
}
}  // namespace eagervm::base
