#include "vm/access_blob_policy.h"

#include <exception>

#include "base/str_cat.h"
#include "vm/vm_context.h"
#include "vm/vm_stream.h"

namespace eagervm::vm {

void AccessBlobPolicy::Compute(VmStream* stream) {
  if (blob_->error() != nullptr) {
    Deliver(blob_->error(), nullptr, 0);
    return;
  }
  if (!blob_->allocated()) {
    if (!write_) {
      Deliver(std::make_shared<ErrorRecord>(absl::FailedPreconditionError(
                  "reading a tensor whose storage was never written (or was already released)")),
              nullptr, 0);
      return;
    }
    absl::Status s = blob_->EnsureAllocated(stream->allocator());
    if (!s.ok()) {
      // The write did not happen: the tensor carries the failure (readers
      // forward it, not "never written"), and the next sync point reports it.
      auto e = std::make_shared<ErrorRecord>(
          absl::Status(s.code(), base::Cat(name(), ": ", s.message())));
      context_->RecordError(e);
      blob_->set_error(e);
      Deliver(e, nullptr, 0);
      return;
    }
  }
  Deliver(nullptr, static_cast<char*>(blob_->data()) + offset_, bytes_);
}

void AccessBlobPolicy::Deliver(const ErrorPtr& error, void* data, size_t bytes) {
  // A throwing callback must not take the VM thread down. The access is a
  // host callback, not a write of the tensor, so the tensor stays healthy
  // and the failure goes to the next Sync().
  absl::Status failure;
  try {
    cb_(error, data, bytes);
    return;
  } catch (const std::exception& ex) {
    failure = absl::InternalError(base::Cat(name(), ": the callback threw: ", ex.what()));
  } catch (...) {
    failure = absl::InternalError(base::Cat(name(), ": the callback threw a non-std::exception"));
  }
  context_->RecordError(std::make_shared<ErrorRecord>(std::move(failure)));
}

}  // namespace eagervm::vm
