#include "vm/lifecycle/error_ledger.h"

#include "base/str_cat.h"

namespace eagervm::vm {

void ErrorLedger::Record(const ErrorPtr& e) {
  base::MutexLock lock(&mu_);
  unreported_.push_back(e);
}

absl::Status ErrorLedger::TakeUnreported() {
  std::deque<ErrorPtr> errors;
  {
    base::MutexLock lock(&mu_);
    errors.swap(unreported_);
  }
  ErrorPtr first;
  int more = 0;
  for (const ErrorPtr& e : errors) {
    if (!e->MarkReported()) continue;  // a Wait/Item saw it first
    if (first == nullptr)
      first = e;
    else
      ++more;
  }
  if (first == nullptr) return absl::OkStatus();
  if (more == 0) return first->status;
  return absl::Status(first->status.code(), base::Cat(first->status.message(), " (and ", more,
                                                      " more error(s) since the last sync)"));
}

}  // namespace eagervm::vm
