#include "vm/tensor_impl.h"

#include <atomic>

#include "base/str_cat.h"
#include "vm/intake/physical_run.h"

namespace eagervm::internal {

absl::Status CheckTensorSlow(const Tensor& t, std::string_view op, std::string_view arg) {
  if (!t.defined()) {
    return absl::FailedPreconditionError(base::Cat(
        op, ": argument '", arg, "' is an undefined tensor (default-constructed or moved-from)"));
  }
  if (internal::ImplOf(t)->fork_generation != vm::ForkGeneration()) [[unlikely]] {
    return absl::FailedPreconditionError(
        base::Cat(op, ": argument '", arg, "' ", ForkedTensorStatus().message()));
  }
  if (!t.ok()) return t.status();  // an op given an error tensor returns that error
  return absl::OkStatus();
}

const absl::Status& ForkedTensorStatus() {
  static const absl::Status* s = new absl::Status(absl::FailedPreconditionError(
      "was made before fork(), in the parent process: eagervm tensors do not cross fork() "
      "(the parent's VM has no threads in the child). Copy the values out (ToVector) before "
      "forking and make new tensors in the child (docs/reliability.md)"));
  return *s;
}

StorageHandle::~StorageHandle() {
  if (blob_->fork_generation() != vm::ForkGeneration()) [[unlikely]] {
    // The parent's storage in a forked child: no VM here to release it in
    // order, and its allocator may be locked by a thread that is gone. Leak.
    new std::shared_ptr<vm::BlobObject>(std::move(blob_));
    return;
  }
  if (blob_->producer() == nullptr) return;  // never written: nothing to free in stream order
  (void)vm::PhysicalRun([&](vm::Builder* b) { return b->ReleaseBlob(std::move(blob_)); });
}

namespace {
std::atomic<uint64_t> g_contiguous_copies{0};
}  // namespace
void NoteContiguousCopy() { g_contiguous_copies.fetch_add(1, std::memory_order_relaxed); }
uint64_t ContiguousCopies() { return g_contiguous_copies.load(std::memory_order_relaxed); }

Tensor NewTensor(const TensorMeta& meta) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = meta;
  auto blob = std::make_shared<vm::BlobObject>(meta);
  impl->whole_storage_meta.Set(blob->meta());
  if (vm::Builder* r = vm::CurrentRecorder(); r != nullptr) [[unlikely]]
    r->NoteNewStorage(blob);
  impl->storage = std::make_shared<StorageHandle>(std::move(blob));
  return internal::WrapImpl(std::move(impl));
}

}  // namespace eagervm::internal
