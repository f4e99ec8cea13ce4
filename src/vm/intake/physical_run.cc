// The front door: PhysicalRun (public and internal), the public builder
// methods, and the process VM accessors the builders use.
#include "vm/intake/physical_run.h"

#include <exception>

#include "base/str_cat.h"
#include "base/thread_role.h"
#include "eagervm/status_macros.h"
#include "eagervm/virtual_machine.h"
#include "vm/intake/last_stream.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/vm_impl.h"
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

namespace internal_vm {
std::atomic<VmImpl*> g_process_vm{nullptr};
VmImpl& CreateProcessVm() {
  VmImpl* vm = &VirtualMachine::Get().impl();
  g_process_vm.store(vm, std::memory_order_release);
  return *vm;
}
}  // namespace internal_vm

namespace internal_run {
constinit thread_local LastStream t_last_stream[kLastStreamSlots];
}  // namespace internal_run

absl::StatusOr<VmStream*> ResolveStream(Stream s, std::string_view op) {
  if (VmStream* cached = LastResolvedStream(s)) [[likely]]
    return cached;
  VmImpl& vm = ProcessVm();
  if (vm.shut_down()) {
    return absl::FailedPreconditionError(
        base::Cat(op, ": the eagervm VM has been shut down; no more work is accepted"));
  }
  absl::StatusOr<VmStream*> stream = vm.GetStream(s);
  if (!stream.ok()) {
    return absl::Status(stream.status().code(), base::Cat(op, ": ", stream.status().message()));
  }
  internal_run::LastStreamSlot(s) = internal_run::LastStream{&vm, s.device(), s.index(), *stream};
  return stream;
}

absl::StatusOr<VmStream*> ResolveStream(Stream s, const char* op) {
  if (VmStream* cached = LastResolvedStream(s)) [[likely]]
    return cached;
  return ResolveStream(s, std::string_view(op));  // names the op only when it fails
}

absl::Status CheckMayBlock(const char* what) {
  if (base::OnVmThread()) {
    return absl::FailedPreconditionError(base::Cat(
        what,
        " was called on an eagervm VM thread (inside a kernel or callback); it would wait "
        "for itself. Blocking calls are for user threads only"));
  }
  if (internal_run::t_eager != nullptr) {
    return absl::FailedPreconditionError(
        base::Cat(what,
                  " was called inside a PhysicalRun build callback; it would wait for instructions "
                  "that are submitted only when the callback returns"));
  }
  return absl::OkStatus();
}

absl::Status PhysicalRun(absl::FunctionRef<absl::Status(InstructionsBuilder*)> build) {
  return PhysicalRun([&](Builder* b) { return build(b); });
}

absl::Status InstructionsBuilder::ReleaseTensor(const Tensor& t) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(t, "ReleaseTensor", "t"));
  return Builder::From(this)->ReleaseBlob(t.impl()->shared_blob());
}

absl::Status InstructionsBuilder::AccessBlobByCallback(const Tensor& t,
                                                       std::function<void(void*, size_t)> cb,
                                                       AccessMode mode) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(t, "AccessBlobByCallback", "t"));
  if (!cb) return absl::InvalidArgumentError("AccessBlobByCallback: empty callback");
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
