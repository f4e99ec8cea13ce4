#include "base/spin.h"

#include <sched.h>

namespace eagervm::base {

void SpinYield() { sched_yield(); }

}  // namespace eagervm::base
