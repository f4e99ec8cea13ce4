#include "vm/blob_object.h"

#include <exception>

#include "base/log.h"

namespace eagervm::vm {
namespace {

// A FromBlob deleter is user code that must not throw (tensor.h); one that
// does is caught here instead of terminating a VM thread. The storage counts
// as freed either way: the deleter is not called again.
void RunUserDeleter(const std::function<void(void*)>& deleter, void* data) {
  try {
    deleter(data);
  } catch (const std::exception& e) {
    EAGERVM_LOG(kError, "the deleter given to FromBlob threw (", e.what(),
                "); the exception is dropped");
  } catch (...) {
    EAGERVM_LOG(kError, "the deleter given to FromBlob threw; the exception is dropped");
  }
}

alignas(64) char empty_user_data[64];

}  // namespace

void* BlobObject::EmptyUserData() { return empty_user_data; }

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
    RunUserDeleter(deleter_, data_ == EmptyUserData() ? nullptr : data_);
    deleter_ = nullptr;
  } else if (allocator_ != nullptr) {
    allocator_->Deallocate(data_, nbytes_);
  }
  data_ = nullptr;
  allocator_ = nullptr;
  partial_.reset();
}

}  // namespace eagervm::vm
