#include "vm/blob_object.h"

namespace eagervm::vm {

absl::Status BlobObject::EnsureAllocated(memory::Allocator* allocator) {
  if (data_ != nullptr) return absl::OkStatus();
  absl::StatusOr<void*> p = allocator->Allocate(nbytes_);
  if (!p.ok()) return p.status();
  data_ = *p;
  allocator_ = allocator;
  return absl::OkStatus();
}

void BlobObject::Free() {
  if (data_ == nullptr) return;
  if (deleter_) {
    deleter_(data_);
    deleter_ = nullptr;
  } else if (allocator_ != nullptr) {
    allocator_->Deallocate(data_, nbytes_);
  }
  data_ = nullptr;
  allocator_ = nullptr;
}

}  // namespace eagervm::vm
