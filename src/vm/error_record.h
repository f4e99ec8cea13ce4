// ErrorRecord: one runtime failure, shared by every tensor it poisoned. The
// `reported` flag makes each failure surface once: at the first Wait/Item/Sync
// that observes it.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_ERROR_RECORD_H_
#define EAGERVM_VM_ERROR_RECORD_H_

#include <atomic>
#include <memory>

#include "absl/status/status.h"

namespace eagervm::vm {

struct ErrorRecord {
  explicit ErrorRecord(absl::Status s) : status(std::move(s)) {}
  const absl::Status status;
  std::atomic<bool> reported{false};
  // Marks it reported; true if this call was the first to do so.
  bool MarkReported() { return !reported.exchange(true, std::memory_order_acq_rel); }
};
using ErrorPtr = std::shared_ptr<ErrorRecord>;

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ERROR_RECORD_H_
