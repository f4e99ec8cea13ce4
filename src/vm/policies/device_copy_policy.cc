#include "vm/policies/device_copy_policy.h"

#include "base/str_cat.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::vm {

void DeviceCopyPolicy::Compute(VmStream* stream) {
  if (src_->error() != nullptr) {
    dst_->set_error(src_->error());  // forward, do not copy
    return;
  }
  if (skip_unwritten_source_ && !src_->allocated()) return;
  const bool fresh = !dst_->allocated();
  absl::Status s =
      !src_->allocated() ? absl::FailedPreconditionError(
                               "the source was never written (or its storage was released)")
      : !src_->Written(src_offset_, src_offset_ + bytes_)
          ? absl::FailedPreconditionError(
                "the source's bytes were never written (a write through a view wrote only part "
                "of its storage)")
          : stream->policy()->CopyAcrossDevices(
                stream, DeviceCopy{dst_.get(), dst_offset_, src_.get(), src_offset_, bytes_});
  if (!s.ok()) {
    auto e =
        std::make_shared<ErrorRecord>(absl::Status(s.code(), base::Cat(op_, ": ", s.message())));
    stream->context()->RecordError(e);
    dst_->set_error(e);
    return;
  }
  // A successful write of the whole storage heals it; of a view, tracks it.
  dst_->NoteWritten(dst_offset_, dst_offset_ + bytes_, fresh);
}

}  // namespace eagervm::vm
