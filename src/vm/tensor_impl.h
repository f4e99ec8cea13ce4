// TensorImpl: what a Tensor handle points at. A view shares its base's
// StorageHandle; the handle's destruction (last user reference to a storage)
// emits the ReleaseTensor instruction. Instructions hold the BlobObject itself,
// so in-flight work keeps the storage object alive without delaying release.
#ifndef EAGERVM_VM_TENSOR_IMPL_H_
#define EAGERVM_VM_TENSOR_IMPL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "eagervm/tensor.h"
// Exported (src/vm/README.md): what it needs of vm, whatever the includer.
#pragma push_macro("EAGERVM_VM_EXPORTING")
#undef EAGERVM_VM_EXPORTING
#define EAGERVM_VM_EXPORTING 1
#include "vm/blob_object.h"
#include "vm/lifecycle/fork_guard.h"
#pragma pop_macro("EAGERVM_VM_EXPORTING")

namespace eagervm::internal {

class StorageHandle {
 public:
  explicit StorageHandle(std::shared_ptr<vm::BlobObject> blob) : blob_(std::move(blob)) {}
  ~StorageHandle();  // queues the release through PhysicalRun (a no-op after shutdown)
  StorageHandle(const StorageHandle&) = delete;
  StorageHandle& operator=(const StorageHandle&) = delete;
  const std::shared_ptr<vm::BlobObject>& blob() const { return blob_; }

  // The storage's version: bumped by every in-place op once autograd is in
  // use (src/autograd), so a backward formula finds a saved tensor that was
  // overwritten after the forward read it. Any thread; relaxed: two writers
  // racing may lose one bump, never both, so a changed storage never reads
  // as unchanged.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void BumpVersion() {
    version_.store(version_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

 private:
  std::shared_ptr<vm::BlobObject> blob_;
  std::atomic<uint32_t> version_{0};
};

// What autograd keeps per tensor (requires_grad, the node that made it, the
// accumulated gradient); defined by src/autograd, opaque here.
struct AutogradMeta;

// A TensorImpl's autograd record. Not copied with its TensorImpl: a copy is a
// view, which autograd records on its own (RecordView below).
class AutogradSlot {
 public:
  AutogradSlot() = default;
  AutogradSlot(const AutogradSlot&) {}
  AutogradSlot& operator=(const AutogradSlot&) {
    meta_.reset();
    return *this;
  }
  AutogradMeta* get() const { return meta_.get(); }
  const std::shared_ptr<AutogradMeta>& shared() const { return meta_; }
  void Set(std::shared_ptr<AutogradMeta> m) { meta_ = std::move(m); }

 private:
  std::shared_ptr<AutogradMeta> meta_;
};

// Set once by src/autograd when the first tensor requires grad: records that
// `view` (Reshape, Slice) was made from `base`, a tensor with an autograd
// record. Called only for such a base, so never while null.
using ViewRecorder = void (*)(const Tensor& base, const Tensor& view, const char* op);
inline std::atomic<ViewRecorder> g_view_recorder{nullptr};

// The storage's own meta (BlobObject::meta()) when a tensor covers its whole
// storage with that meta, else null. Not copied with its TensorImpl: a copy
// is a view about to change its meta or offset (Tensor::Reshape, Slice).
class WholeStorageMeta {
 public:
  WholeStorageMeta() = default;
  WholeStorageMeta(const WholeStorageMeta&) {}
  WholeStorageMeta& operator=(const WholeStorageMeta&) {
    meta_ = nullptr;
    return *this;
  }
  void Set(const TensorMeta* m) { meta_ = m; }
  const TensorMeta* get() const { return meta_; }

 private:
  const TensorMeta* meta_ = nullptr;
};

struct TensorImpl {
  absl::Status status;  // the rejection of an error tensor; OK otherwise
  TensorMeta meta;
  // &storage's meta when it equals `meta` and offset is 0: an op's operand
  // then points at it instead of copying `meta` (Operand::meta).
  WholeStorageMeta whole_storage_meta;
  std::shared_ptr<StorageHandle> storage;
  int64_t offset = 0;  // bytes from the start of the storage
  // Element strides of a strided view (Tensor::Permute, T, Expand, Slice on
  // an inner axis), one per dim; empty for a compact row-major tensor (every
  // tensor that is not such a view). Never negative. An operand of a kernel
  // call is never strided: the ops layer hands a kernel a compact copy, or,
  // for kernels that read strides, the byte span the view covers
  // (ops/strided.h).
  std::vector<int64_t> strides;
  // vm::ForkGeneration() at creation: made before a fork(), the tensor is an
  // error in the child (Tensor::ok(); docs/reliability.md).
  uint32_t fork_generation = vm::ForkGeneration();
  AutogradSlot autograd;  // empty unless autograd is in use for this tensor

  vm::BlobObject* blob() const { return storage->blob().get(); }
  const std::shared_ptr<vm::BlobObject>& shared_blob() const { return storage->blob(); }
};

// The runtime's way to a Tensor's TensorImpl, which the public header keeps
// private (Tensor befriends this struct): users of the installed headers
// cannot reach it.
struct TensorAccess {
  static const std::shared_ptr<TensorImpl>& Impl(const Tensor& t) { return t.impl(); }
  static Tensor Wrap(std::shared_ptr<TensorImpl> impl) { return Tensor(std::move(impl)); }
};
// The TensorImpl behind `t` (null for an undefined tensor).
inline const std::shared_ptr<TensorImpl>& ImplOf(const Tensor& t) { return TensorAccess::Impl(t); }
// A handle to `impl`.
inline Tensor WrapImpl(std::shared_ptr<TensorImpl> impl) {
  return TensorAccess::Wrap(std::move(impl));
}

// The status of a tensor made before fork(), used in the child.
const absl::Status& ForkedTensorStatus();

// True iff a tensor with this impl is defined and usable here: not an error
// tensor and made in this process (`generation`: vm::ForkGeneration(), an
// atomic load, so a caller checking several tensors reads it once). The
// predicate of CheckTensor, for the fast paths that check without building
// a message.
inline bool Usable(const TensorImpl* impl, uint32_t generation) {
  return impl != nullptr && impl->status.ok() && impl->fork_generation == generation;
}

// CheckTensor's answer for a tensor that is not OK (builds the message).
absl::Status CheckTensorSlow(const Tensor& t, std::string_view op, std::string_view arg);

// OK iff `t` is defined and not an error tensor; otherwise the status to
// return from op `op`, naming the argument. Inline: every op checks its
// operands, and the good case is three loads.
inline absl::Status CheckTensor(const Tensor& t, std::string_view op, std::string_view arg) {
  if (Usable(internal::ImplOf(t).get(), vm::ForkGeneration())) [[likely]]
    return absl::OkStatus();
  return CheckTensorSlow(t, op, arg);
}

// Process-wide count of compact copies the ops layer made of strided views
// for kernels that need compact input (VmStats::contiguous_copies). Any thread.
void NoteContiguousCopy();
uint64_t ContiguousCopies();

// A tensor with fresh (not yet allocated) storage.
Tensor NewTensor(const TensorMeta& meta);

// `view`, made from `base`, after autograd recorded it when `base` has an
// autograd record (every view maker returns through here).
inline Tensor RecordedView(const Tensor& base, Tensor view, const char* op) {
  if (ImplOf(base)->autograd.get() != nullptr) [[unlikely]]
    g_view_recorder.load(std::memory_order_acquire)(base, view, op);
  return view;
}

}  // namespace eagervm::internal

#endif  // EAGERVM_VM_TENSOR_IMPL_H_
