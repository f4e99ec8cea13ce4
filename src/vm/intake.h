// The VM's front door for the ops layer: everything an op needs to reach the
// VM, and nothing it may name besides (the layer table lets ops include only
// vm's exported headers: this one, tensor_impl.h, kernel_call.h and
// kernel_args.h; src/vm/README.md).
//
//   SubmitKernelCall   one kernel call, one instruction, to the VM (inline)
//   CurrentStream      the calling thread's current stream (inline)
//   PhysicalRun        run a build callback on the thread's builder, submit
//   Builder            what a build callback calls (CallKernel, SyncRead, ...)
//   ProcessVm, ResolveStream, CheckMayBlock   the process VM, for user threads
//   ForkGeneration     the fork guard's generation (tensors from before a fork)
//
// "Life of an op call" in docs/architecture.md walks the path step by step.
#ifndef EAGERVM_VM_INTAKE_H_
#define EAGERVM_VM_INTAKE_H_

#include "vm/kernel_args.h"
#include "vm/kernel_call.h"
#include "vm/tensor_impl.h"

#pragma push_macro("EAGERVM_VM_EXPORTING")
#undef EAGERVM_VM_EXPORTING
#define EAGERVM_VM_EXPORTING 1
#include "vm/intake/builder.h"
#include "vm/intake/current_stream.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/intake/submit_kernel_call.h"
#include "vm/lifecycle/fork_guard.h"
#pragma pop_macro("EAGERVM_VM_EXPORTING")

#endif  // EAGERVM_VM_INTAKE_H_
