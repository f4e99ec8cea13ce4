// ErrorLedger: the runtime errors no sync point has reported yet. Kernels
// and callbacks that fail file theirs here (through VmContext::RecordError);
// Sync() takes them, so each failure reaches the user once.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_ERROR_LEDGER_H_
#define EAGERVM_VM_LIFECYCLE_ERROR_LEDGER_H_

#include <deque>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "vm/error_record.h"

namespace eagervm::vm {

class ErrorLedger {
 public:
  // Any thread; one short lock.
  void Record(const ErrorPtr& e);
  // Any thread, never blocks: the first recorded error that no sync point
  // has reported yet, noting how many more there are; each counts as
  // reported now. OK if there is none.
  absl::Status TakeUnreported();

 private:
  base::Mutex mu_;
  std::deque<ErrorPtr> unreported_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_ERROR_LEDGER_H_
