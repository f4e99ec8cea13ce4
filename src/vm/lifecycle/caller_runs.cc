#include "vm/lifecycle/caller_runs.h"

namespace eagervm::vm::internal_caller_runs {

constinit thread_local CallerRuns t_mode = CallerRuns::kNone;

}  // namespace eagervm::vm::internal_caller_runs
