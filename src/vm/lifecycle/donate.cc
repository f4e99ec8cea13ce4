#include "vm/lifecycle/donate.h"

namespace eagervm::vm::internal_donate {

constinit thread_local DonateMode t_mode = DonateMode::kNone;
constinit thread_local int32_t t_busy_skip = 0;

}  // namespace eagervm::vm::internal_donate
