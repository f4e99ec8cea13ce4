// The ops' way into the VM, inline: one kernel call becomes one
// instruction (built by EagerBuilder::NewKernelCall, the one place that
// constructs instructions), handed to the VM as a list of its own, with no
// builder object. Every built-in op, custom op and collective comes through
// SubmitKernelCall; it is inline so that an op's whole path on its thread is
// one function (a call layer costs a measurable share of an op).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_SUBMIT_KERNEL_CALL_H_
#define EAGERVM_VM_INTAKE_SUBMIT_KERNEL_CALL_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vm/intake/builder.h"
#include "vm/intake/eager_builder_inl.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm::vm {

namespace internal_submit {
// The slow paths, out of line (eager_builder.cc): inside a build callback
// or a capture, the call is built into the running PhysicalRun
// (EagerBuilder::CallKernel, or the recorder's); and the errors.
absl::Status SubmitInBuild(const KernelCall& call, const KernelCallArgs& a, Stream stream);
absl::Status TooManyScalars(const char* op);
}  // namespace internal_submit

// PhysicalRun + CallKernel for one call, without the builder: outside a
// build callback and a capture, the call's instruction goes to the VM as a
// list of its own (the ops' path: SubmitOp); inside them, it is built into
// the running PhysicalRun as CallKernel would. Any user thread; blocks only
// for back-pressure.
[[gnu::always_inline]] inline absl::Status SubmitKernelCall(const KernelCall& call,
                                                            const KernelCallArgs& a,
                                                            Stream stream) {
  if (InBuildCallback()) [[unlikely]]
    return internal_submit::SubmitInBuild(call, a, stream);
  // Local copies that never escape, for registers (docs/performance.md,
  // "Registers on the op path").
  const KernelCall local_call = call;
  const KernelCallArgs local_args = a;
  absl::Status error;
  Instruction* instr = EagerBuilder::NewKernelCall(local_call, local_args, stream, &error);
  if (instr == nullptr) [[unlikely]]
    return error;
  return ProcessVm().ReceiveOne(instr);
}

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_SUBMIT_KERNEL_CALL_H_
