#include "vm/access_blob_policy.h"

#include <exception>

#include "base/str_cat.h"
#include "vm/vm_stream.h"

namespace eagervm::vm {

void AccessBlobPolicy::Compute(VmStream* stream) {
  if (blob_->error() != nullptr) {
    cb_(blob_->error(), nullptr, 0);
    return;
  }
  if (!blob_->allocated()) {
    if (!write_) {
      cb_(std::make_shared<ErrorRecord>(absl::FailedPreconditionError(
              "reading a tensor whose storage was never written (or was already released)")),
          nullptr, 0);
      return;
    }
    absl::Status s = blob_->EnsureAllocated(stream->allocator());
    if (!s.ok()) {
      cb_(std::make_shared<ErrorRecord>(s), nullptr, 0);
      return;
    }
  }
  Deliver(nullptr, static_cast<char*>(blob_->data()) + offset_, bytes_);
}

void AccessBlobPolicy::Deliver(const ErrorPtr& error, void* data, size_t bytes) {
  try {
    cb_(error, data, bytes);
  } catch (...) {
    // A throwing user callback must not take the VM thread down; the error is
    // not attributable to a tensor, so it is dropped here (documented).
  }
}

}  // namespace eagervm::vm
