// EagerBuilder: the builder of eager mode. Each call becomes an instruction
// (from the pool, its policy constructed in place) appended to a list that
// PhysicalRun hands to the VM in one Receive. Lives on the stack of the
// outermost PhysicalRun of a thread; nested PhysicalRuns on that thread (an
// op called, or a handle dropped, inside a build callback) append to it, so
// the batch keeps program order.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_EAGER_BUILDER_H_
#define EAGERVM_VM_INTAKE_EAGER_BUILDER_H_

#include "vm/engine/instruction.h"
#include "vm/intake/builder.h"

namespace eagervm::vm {

class EagerBuilder final : public Builder {
 public:
  // The instruction of one kernel call on `stream` (resolved first), its
  // operands recorded and their storages noted written, in kBuilding; or
  // null with *error set (no such stream, too many scalars). Builds nothing
  // that could drop a tensor, so no nested PhysicalRun can start inside it.
  // The one constructor of op-call instructions: CallKernel uses it, and so
  // does the op path (SubmitKernelCall) with no builder object. Inline
  // (eager_builder_inl.h): it is most of an op's cost on its thread.
  [[gnu::always_inline]] static inline Instruction* NewKernelCall(const KernelCall& call,
                                                                  const KernelCallArgs& a,
                                                                  Stream stream,
                                                                  absl::Status* error);

  EagerBuilder() = default;
  ~EagerBuilder() override {  // discards anything not submitted
    if (!list_.empty()) Rollback(0);
  }

  absl::Status CallKernel(const KernelCall& call, const KernelCallArgs& args,
                          Stream stream) override;
  absl::Status CopyAcrossDevices(const Tensor& dst, const Tensor& src, const char* op) override;
  absl::Status SyncRead(const Tensor& t, size_t bytes, BlobCallback cb, const char* what) override;
  absl::Status ReleaseBlob(std::shared_ptr<BlobObject> blob) override;
  absl::Status HostWrite(const Tensor& t, BlobCallback cb, const char* what) override;
  absl::Status AccessBlob(const Tensor& t, BlobCallback cb, bool write, const char* what) override;
  absl::Status AddBarrier(std::function<void()> cb, const char* what) override;
  absl::Status Launch(std::shared_ptr<LaunchTarget> target, int part, VmStream* stream) override;

  // A position in the list, and dropping what was built after it (a nested
  // PhysicalRun whose build failed); releases are kept, they are still due.
  size_t Mark() override { return list_.size; }
  void Rollback(size_t mark) override;

  // Hands the list to the VM, or, when `build_status` is an error, discards
  // it (except the releases of dropped handles, which are still due) and
  // returns the error.
  absl::Status Finish(absl::Status build_status) {
    if (build_status.ok() && !list_.empty()) [[likely]]
      return Submit();
    return FinishSlow(std::move(build_status));
  }

 private:
  absl::Status Submit();
  absl::Status FinishSlow(absl::Status build_status);
  void Append(Instruction* instr) { list_.PushBack(instr); }
  // A DeviceCopy instruction (CopyAcrossDevices); with
  // `skip_unwritten_source` a source with no storage at run time leaves
  // `dst` as it is instead of failing.
  absl::Status AppendDeviceCopy(const Tensor& dst, const Tensor& src, const char* op,
                                bool skip_unwritten_source);
  // One AccessBlob instruction of a user's callback on `stream`; with
  // `runtime_callback` the runtime's own (short, never blocks: HostWrite on
  // the CPU), which an idle VM may run on the calling thread (donatable).
  void AppendAccess(const Tensor& t, BlobCallback cb, bool write, VmStream* stream,
                    bool runtime_callback = false);
  // A user's callback on a device tensor, through a CPU tensor (AccessBlob).
  absl::Status StagedAccess(const Tensor& t, BlobCallback cb, bool write, const char* what);

  InstructionList list_;
  bool only_releases_ = true;  // releases never wait for back-pressure
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_EAGER_BUILDER_H_
