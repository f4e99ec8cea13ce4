#include "vm/lifecycle/donate.h"

namespace eagervm::vm::internal_donate {

constinit thread_local DonateMode t_mode = DonateMode::kNone;
constinit thread_local int32_t t_busy_skip = 0;
constinit thread_local int64_t t_run_ahead = 0;
constinit thread_local int64_t t_handoff_at_ns = 0;
constinit thread_local int32_t t_large_on_caller = 0;
constinit thread_local int32_t t_large_backoff = 0;
constinit thread_local const VmStream* t_handoff_stream = nullptr;

}  // namespace eagervm::vm::internal_donate
