#include "vm/tensor_impl.h"

#include "base/str_cat.h"
#include "vm/physical_run.h"

namespace eagervm::internal {

absl::Status CheckTensor(const Tensor& t, std::string_view op, std::string_view arg) {
  if (!t.defined()) {
    return absl::FailedPreconditionError(base::Cat(
        op, ": argument '", arg, "' is an undefined tensor (default-constructed or moved-from)"));
  }
  if (!t.ok()) return t.status();  // an op given an error tensor returns that error
  return absl::OkStatus();
}

StorageHandle::~StorageHandle() {
  if (blob_->producer() == nullptr) return;  // never written: nothing to free in stream order
  (void)vm::PhysicalRun([&](vm::Builder* b) { return b->ReleaseBlob(std::move(blob_)); });
}

Tensor NewTensor(const TensorMeta& meta) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = meta;
  const size_t bytes = static_cast<size_t>(meta.shape.numel()) * SizeOf(meta.dtype);
  auto blob = std::make_shared<vm::BlobObject>(bytes, meta.device);
  if (vm::Builder* r = vm::CurrentRecorder(); r != nullptr) [[unlikely]]
    r->NoteNewStorage(blob);
  impl->storage = std::make_shared<StorageHandle>(std::move(blob));
  return Tensor(std::move(impl));
}

}  // namespace eagervm::internal
