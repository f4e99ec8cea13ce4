#include "vm/policies/access_blob_policy.h"

#include <exception>

#include "base/str_cat.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::vm {

void AccessBlobPolicy::Compute(VmStream* stream) {
  if (const ErrorPtr& e = blob_->error(); e != nullptr) {
    // The callback is skipped. An error a Wait or Sync already reported
    // would then leave the skip unsaid: file it anew, so the next sync point
    // says the user's callback did not run.
    if (!runtime_callback_ && e->reported.load(std::memory_order_acquire)) {
      context_->RecordError(std::make_shared<ErrorRecord>(
          absl::Status(e->status.code(), base::Cat(name(),
                                                   ": the callback was not run: the tensor carries "
                                                   "an error (reported before): ",
                                                   e->status.message()))));
    }
    Deliver(e, nullptr, 0);
    return;
  }
  const bool fresh = !blob_->allocated();
  if (fresh) {
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
  } else if (!write_ && !blob_->Written(offset_, offset_ + bytes_)) [[unlikely]] {
    Deliver(std::make_shared<ErrorRecord>(absl::FailedPreconditionError(
                "reading bytes of a tensor that no write covered (a write through a view wrote "
                "only part of a storage that was never written)")),
            nullptr, 0);
    return;
  }
  Deliver(nullptr, static_cast<char*>(blob_->data()) + offset_, bytes_);
  // A write callback wrote the view's bytes (whatever it did with them).
  if (write_) blob_->NoteWritten(offset_, offset_ + bytes_, fresh);
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
