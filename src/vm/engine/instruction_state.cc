#include "vm/engine/instruction_state.h"

#include "base/str_cat.h"

namespace eagervm::vm {

const char* ToString(InstrState s) {
  switch (s) {
    case InstrState::kFree:
      return "free";
    case InstrState::kBuilding:
      return "building";
    case InstrState::kPending:
      return "pending";
    case InstrState::kWaiting:
      return "waiting";
    case InstrState::kReady:
      return "ready";
    case InstrState::kRunning:
      return "running";
    case InstrState::kBarrier:
      return "barrier";
  }
  return "?";
}

bool IsLegalTransition(InstrState from, InstrState to) {
  using S = InstrState;
  switch (from) {
    case S::kFree:
      return to == S::kBuilding;
    case S::kBuilding:
      return to == S::kFree || to == S::kPending;
    case S::kPending:
      return to == S::kWaiting || to == S::kReady || to == S::kBarrier || to == S::kBuilding;
    case S::kWaiting:
      return to == S::kReady;
    case S::kReady:
      return to == S::kRunning;
    case S::kRunning:
      return to == S::kFree;
    case S::kBarrier:
      return to == S::kFree;
  }
  return false;
}

std::string DescribeTransition(InstrState from, InstrState to, const char* policy_name,
                               uint64_t id) {
  return base::Cat("illegal instruction state transition ", ToString(from), " -> ", ToString(to),
                   " (policy ", policy_name != nullptr ? policy_name : "none", ", id ", id,
                   "; the legal ones are listed in vm/engine/instruction_state.h)");
}

}  // namespace eagervm::vm
