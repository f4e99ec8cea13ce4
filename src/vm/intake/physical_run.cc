// The front door: PhysicalRun (public and internal) and the public builder
// methods. The process VM and stream resolution are process_vm.cc's.
#include "vm/intake/physical_run.h"

#include <exception>

#include "base/str_cat.h"
#include "eagervm/status_macros.h"
#include "vm/tensor_impl.h"

namespace eagervm::vm {

namespace internal_run {
constinit thread_local Builder* t_recorder = nullptr;
constinit thread_local EagerBuilder* t_eager = nullptr;

absl::Status RunRecorded(Builder* recorder, absl::FunctionRef<absl::Status(Builder*)> build) {
  const size_t mark = recorder->Mark();
  absl::Status s = build(recorder);
  if (!s.ok()) recorder->Rollback(mark);
  return s;
}
}  // namespace internal_run

absl::Status PhysicalRun(absl::FunctionRef<absl::Status(InstructionsBuilder*)> build) {
  return PhysicalRun([&](Builder* b) { return build(b); });
}

absl::Status InstructionsBuilder::ReleaseTensor(const Tensor& t) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(t, "ReleaseTensor", "t"));
  return Builder::From(this)->ReleaseBlob(internal::ImplOf(t)->shared_blob());
}

absl::Status InstructionsBuilder::AccessBlobByCallback(const Tensor& t,
                                                       std::function<void(void*, size_t)> cb,
                                                       AccessMode mode) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(t, "AccessBlobByCallback", "t"));
  if (!cb) return absl::InvalidArgumentError("AccessBlobByCallback: empty callback");
  if (!t.is_contiguous()) {  // the callback gets (data, bytes): compact memory only
    return absl::InvalidArgumentError(
        base::Cat("AccessBlobByCallback: the tensor ", t.shape().ToString(),
                  " is a strided view (Permute, T, Expand or Slice on an inner axis); access "
                  "its Contiguous() copy"));
  }
  return Builder::From(this)->AccessBlob(
      t,
      [cb = std::move(cb)](const ErrorPtr& e, void* data, size_t bytes) {
        if (e == nullptr) cb(data, bytes);
      },
      mode == AccessMode::kWrite, "AccessBlobByCallback");
}

absl::Status InstructionsBuilder::Barrier(std::function<void()> cb) {
  return Builder::From(this)->AddBarrier(std::move(cb), "Barrier");
}

absl::Status InstructionsBuilder::GlobalSync() {
  return Builder::From(this)->AddBarrier(nullptr, "GlobalSync");
}

}  // namespace eagervm::vm
