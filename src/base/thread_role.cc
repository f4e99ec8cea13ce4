#include "base/thread_role.h"

namespace eagervm::base {
namespace {
thread_local ThreadRole current_role = ThreadRole::kUser;
}
ThreadRole CurrentThreadRole() { return current_role; }
void SetCurrentThreadRole(ThreadRole role) { current_role = role; }
}  // namespace eagervm::base
