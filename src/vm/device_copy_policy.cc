#include "vm/device_copy_policy.h"

#include "base/str_cat.h"
#include "vm/vm_context.h"
#include "vm/vm_stream.h"

namespace eagervm::vm {

void DeviceCopyPolicy::Compute(VmStream* stream) {
  if (src_->error() != nullptr) {
    dst_->set_error(src_->error());  // forward, do not copy
    return;
  }
  if (skip_unwritten_source_ && !src_->allocated()) return;
  absl::Status s =
      src_->allocated()
          ? stream->policy()->CopyAcrossDevices(
                stream, DeviceCopy{dst_.get(), dst_offset_, src_.get(), src_offset_, bytes_})
          : absl::FailedPreconditionError(
                "the source was never written (or its storage was released)");
  if (!s.ok()) {
    auto e =
        std::make_shared<ErrorRecord>(absl::Status(s.code(), base::Cat(op_, ": ", s.message())));
    stream->context()->RecordError(e);
    dst_->set_error(e);
    return;
  }
  dst_->clear_error();  // a successful write heals the storage
}

}  // namespace eagervm::vm
