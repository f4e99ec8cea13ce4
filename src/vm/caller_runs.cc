#include "vm/caller_runs.h"

namespace eagervm::vm {
namespace {
constinit thread_local CallerRuns t_caller_runs = CallerRuns::kNone;
}  // namespace

CallerRuns CurrentCallerRuns() { return t_caller_runs; }

CallerRunsScope::CallerRunsScope(CallerRuns mode) : previous_(t_caller_runs) {
  t_caller_runs = mode;
}

CallerRunsScope::~CallerRunsScope() { t_caller_runs = previous_; }

}  // namespace eagervm::vm
