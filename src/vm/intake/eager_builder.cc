#include "vm/intake/eager_builder.h"

#include <typeinfo>

#include "base/str_cat.h"
#include "vm/engine/instruction_pool.h"
#include "vm/intake/eager_builder_inl.h"
#include "vm/intake/last_stream.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/intake/submit_kernel_call.h"
#include "vm/kernel_args.h"
#include "vm/lifecycle/vm_impl.h"
#include "vm/policies/barrier_policy.h"
#include "vm/policies/device_copy_policy.h"
#include "vm/policies/launch_policy.h"
#include "vm/policies/op_call_policy.h"
#include "vm/policies/release_tensor_policy.h"
#include "vm/streams/vm_stream.h"
#include "vm/tensor_impl.h"

namespace eagervm::vm {
namespace {

bool IsRelease(const Instruction* i) {
  const InstructionPolicy& p = *i->policy();
  return typeid(p) == typeid(ReleaseTensorPolicy);
}

// Reads go where the storage was last written (no cross-stream edge in the
// common case); writes, and storages never written, to the current stream.
absl::StatusOr<VmStream*> AccessStream(const Tensor& t, bool write, const char* what) {
  VmStream* s = write ? nullptr : internal::ImplOf(t)->blob()->last_writer_stream();
  if (s != nullptr) return s;
  return ResolveStream(Stream::Current(t.device()), what);
}

VmContext* Context() { return &ProcessVm(); }

// A CPU storage that a CPU stream made (or nothing yet): pageable memory, as
// far as anyone can tell when the copy is queued.
bool PageableHostSource(const BlobObject& blob) {
  const VmStream* producer = blob.producer();
  return producer == nullptr || producer->id().device().is_cpu();
}

}  // namespace

void EagerBuilder::Rollback(size_t mark) {
  if (list_.size <= mark) return;
  // Keep the first `mark` instructions and every release; recycle the rest.
  InstructionList kept;
  size_t index = 0;
  while (!list_.empty()) {
    Instruction* i = list_.PopFront();
    if (index++ < mark || IsRelease(i))
      kept.PushBack(i);
    else
      InstructionPool::Recycle(i);
  }
  list_ = kept;
}

absl::Status EagerBuilder::Submit() {
  return ProcessVm().Receive(&list_, only_releases_ ? Backpressure::kNoWait : Backpressure::kWait);
}

absl::Status EagerBuilder::FinishSlow(absl::Status build_status) {
  if (!build_status.ok()) Rollback(0);
  if (!list_.empty()) {
    absl::Status s = ProcessVm().Receive(
        &list_, only_releases_ || !build_status.ok() ? Backpressure::kNoWait : Backpressure::kWait);
    if (build_status.ok()) return s;
  }
  return build_status;
}

absl::Status EagerBuilder::CallKernel(const KernelCall& call, const KernelCallArgs& a,
                                      Stream stream) {
  absl::Status error;
  Instruction* instr = NewKernelCall(call, a, stream, &error);
  if (instr == nullptr) [[unlikely]]
    return error;
  Append(instr);
  only_releases_ = false;
  return absl::OkStatus();
}

namespace internal_submit {

absl::Status SubmitInBuild(const KernelCall& call, const KernelCallArgs& a, Stream stream) {
  return PhysicalRun([&](auto* b) -> absl::Status { return b->CallKernel(call, a, stream); });
}

absl::Status TooManyScalars(const char* op) {
  return absl::InternalError(base::Cat(op, ": too many scalar arguments"));
}

}  // namespace internal_submit

absl::Status EagerBuilder::CopyAcrossDevices(const Tensor& dst, const Tensor& src, const char* op) {
  return AppendDeviceCopy(dst, src, op, /*skip_unwritten_source=*/false);
}

absl::Status EagerBuilder::AppendDeviceCopy(const Tensor& dst, const Tensor& src, const char* op,
                                            bool skip_unwritten_source) {
  const Device target = dst.device().is_cpu() ? src.device() : dst.device();
  const int index = dst.device().is_cpu() ? kDeviceToHostStreamIndex : kHostToDeviceStreamIndex;
  // The device's availability first: its message is the useful one.
  absl::StatusOr<VmStream*> stream = ResolveStream(Stream(target, index), op);
  if (!stream.ok()) return stream.status();
  if (!src.device().is_cpu() && !dst.device().is_cpu()) {
    absl::StatusOr<VmStream*> other = ResolveStream(Stream(src.device(), 0), op);
    if (!other.ok()) return other.status();
  }
  // Host memory on one side: the copy lands in (D2H) or stages through (H2D
  // from pageable memory) the stream's host pool, whose slow growth is paid
  // here, not on its thread. A host source a device copy wrote is that
  // device's pinned memory (D2H copies allocate there): no staging.
  if (dst.device().is_cpu() ||
      (src.device().is_cpu() && PageableHostSource(*internal::ImplOf(src)->blob()))) {
    (*stream)->policy()->ReserveHostStaging(dst.nbytes());
  }
  const internal::TensorImpl& d = *internal::ImplOf(dst);
  const internal::TensorImpl& s = *internal::ImplOf(src);
  Instruction* instr = InstructionPool::Acquire();
  instr->Emplace<DeviceCopyPolicy>(op, d.shared_blob(), static_cast<size_t>(d.offset),
                                   s.shared_blob(), static_cast<size_t>(s.offset), dst.nbytes(),
                                   skip_unwritten_source);
  instr->set_stream(*stream);
  d.blob()->NoteWrite(*stream);
  Append(instr);
  only_releases_ = false;
  return absl::OkStatus();
}

absl::Status EagerBuilder::SyncRead(const Tensor& t, size_t bytes, BlobCallback cb,
                                    const char* what) {
  absl::StatusOr<VmStream*> stream = AccessStream(t, /*write=*/false, what);
  if (!stream.ok()) return stream.status();
  if (bytes > 0 && !t.device().is_cpu()) (*stream)->policy()->ReserveHostStaging(bytes);
  const internal::TensorImpl& impl = *internal::ImplOf(t);
  Instruction* instr = InstructionPool::Acquire();
  instr->Emplace<AccessBlobPolicy>(Context(), impl.shared_blob(), static_cast<size_t>(impl.offset),
                                   bytes,
                                   /*write=*/false, std::move(cb), /*runtime_callback=*/true);
  instr->set_stream(*stream);
  Append(instr);
  only_releases_ = false;
  return absl::OkStatus();
}

void EagerBuilder::AppendAccess(const Tensor& t, BlobCallback cb, bool write, VmStream* stream,
                                bool runtime_callback) {
  const internal::TensorImpl& impl = *internal::ImplOf(t);
  if (write) impl.blob()->NoteWrite(stream);
  Instruction* instr = InstructionPool::Acquire();
  const size_t bytes = t.nbytes();
  instr->Emplace<AccessBlobPolicy>(Context(), impl.shared_blob(), static_cast<size_t>(impl.offset),
                                   bytes, write, std::move(cb), runtime_callback);
  if (runtime_callback) {
    instr->donatable = true;
    instr->operand_bytes = bytes < UINT32_MAX ? static_cast<uint32_t>(bytes) : UINT32_MAX;
  }
  instr->set_stream(stream);
  Append(instr);
  only_releases_ = false;
}

absl::Status EagerBuilder::HostWrite(const Tensor& t, BlobCallback cb, const char* what) {
  absl::StatusOr<VmStream*> stream = AccessStream(t, /*write=*/true, what);
  if (!stream.ok()) return stream.status();
  const bool cpu = t.device().is_cpu();
  if (!cpu) (*stream)->policy()->ReserveHostStaging(t.nbytes());
  // On the CPU the callback (a memcpy) may run on the caller, as a small op does.
  AppendAccess(t, std::move(cb), /*write=*/true, *stream, /*runtime_callback=*/cpu);
  return absl::OkStatus();
}

absl::Status EagerBuilder::AccessBlob(const Tensor& t, BlobCallback cb, bool write,
                                      const char* what) {
  if (!t.device().is_cpu()) return StagedAccess(t, std::move(cb), write, what);
  // A user's callback may block: it runs on a CPU stream's thread, never on
  // the scheduler. A read goes where the storage was last written when that
  // is a CPU stream (no cross-stream edge); not to a device's copy stream
  // (a CPU tensor made by a device-to-host copy), whose policy runs on the
  // scheduler thread.
  VmStream* stream = write ? nullptr : internal::ImplOf(t)->blob()->last_writer_stream();
  if (stream == nullptr || !stream->id().device().is_cpu()) {
    absl::StatusOr<VmStream*> cpu = ResolveStream(Stream::Current(Device::Cpu()), what);
    if (!cpu.ok()) return cpu.status();
    stream = *cpu;
  }
  AppendAccess(t, std::move(cb), write, stream);
  return absl::OkStatus();
}

absl::Status EagerBuilder::StagedAccess(const Tensor& t, BlobCallback cb, bool write,
                                        const char* what) {
  // A CPU tensor of t's meta stands in for t: copied out of the device
  // (unless a write finds t never written: there is nothing to keep), the
  // callback runs on it as on any CPU tensor, and a write copies it back.
  // The device's streams only copy; the edges between the three
  // instructions order the callback after t's earlier writers and t's later
  // users after the copy back, as if the callback had touched t itself.
  // (The stand-in's handle drops at the end of this call: its release is
  // appended after the three, in order.)
  Tensor host = internal::NewTensor(TensorMeta{t.shape(), t.dtype(), Device::Cpu()});
  if (!write || internal::ImplOf(t)->blob()->producer() != nullptr) {
    // A write of a tensor whose writers all failed before allocating finds
    // no bytes at run time either: the copy then leaves the stand-in empty
    // (the callback gets fresh memory, as on the CPU) instead of failing.
    absl::Status s = AppendDeviceCopy(host, t, what, /*skip_unwritten_source=*/write);
    if (!s.ok()) return s;
  }
  absl::Status s = AccessBlob(host, std::move(cb), write, what);
  if (!s.ok() || !write) return s;
  return AppendDeviceCopy(t, host, what, /*skip_unwritten_source=*/false);
}

absl::Status EagerBuilder::ReleaseBlob(std::shared_ptr<BlobObject> blob) {
  VmStream* producer = blob->producer();
  if (producer == nullptr) return absl::OkStatus();  // never written: nothing to free in order
  if (blob->has_user_deleter() && !producer->id().device().is_cpu()) {
    // A device storage the user owns (FromDLPack) goes back through the
    // user's deleter, which may block: on a CPU stream's thread, not the
    // device stream's (the scheduler, for CUDA). The release waits for the
    // completion of every earlier use on any stream, as any CPU instruction
    // does, so the owner gets it back only once the device is done with it.
    absl::StatusOr<VmStream*> cpu = ResolveStream(Stream::Current(Device::Cpu()), "ReleaseTensor");
    if (cpu.ok()) producer = *cpu;
  }
  // After shutdown the VM refuses it; the refused instruction frees the
  // storage once nothing runs any more (SubmissionQueue::RecycleRefused).
  // A user's deleter may block: never on a donating thread.
  const bool donatable = !blob->has_user_deleter();
  Instruction* instr = InstructionPool::Acquire();
  instr->Emplace<ReleaseTensorPolicy>(std::move(blob));
  instr->set_stream(producer);
  instr->donatable = donatable;
  Append(instr);
  return absl::OkStatus();
}

absl::Status EagerBuilder::AddBarrier(std::function<void()> cb, const char* what) {
  Instruction* instr = InstructionPool::Acquire();
  instr->Emplace<BarrierPolicy>(std::move(cb), what, Context());
  Append(instr);
  only_releases_ = false;
  return absl::OkStatus();
}

absl::Status EagerBuilder::Launch(std::shared_ptr<LaunchTarget> target, int part,
                                  VmStream* stream) {
  Instruction* instr = InstructionPool::Acquire();
  if (const size_t bytes = target->DonatableBytes(part); bytes != LaunchTarget::kNotDonatable) {
    instr->donatable = true;
    instr->operand_bytes = bytes < UINT32_MAX ? static_cast<uint32_t>(bytes) : UINT32_MAX;
  }
  instr->Emplace<LaunchPolicy>(std::move(target), part);
  instr->set_stream(stream);
  Append(instr);
  only_releases_ = false;
  return absl::OkStatus();
}

}  // namespace eagervm::vm
