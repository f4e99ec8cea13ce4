// The inline half of EagerBuilder (eager_builder.h): NewKernelCall, which
// the op path (SubmitKernelCall) calls on every op without a builder object.
// Included by submit_kernel_call.h and eager_builder.cc only.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_EAGER_BUILDER_INL_H_
#define EAGERVM_VM_INTAKE_EAGER_BUILDER_INL_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vm/engine/instruction_pool.h"
#include "vm/intake/eager_builder.h"
#include "vm/intake/last_stream.h"
#include "vm/intake/process_vm.h"
#include "vm/kernel_args.h"
#include "vm/policies/op_call_policy.h"
#include "vm/tensor_impl.h"

namespace eagervm::vm {

namespace internal_submit {
absl::Status TooManyScalars(const char* op);  // eager_builder.cc

// NewKernelCall's steps, each always_inline so that the op path stays one
// function (their register use is measured: docs/performance.md).

// The VmStream `stream` names for op `op` (the thread's last one, else
// resolved), or nullptr with *error set.
[[gnu::always_inline]] inline VmStream* ResolveOrError(Stream stream, const char* op,
                                                       absl::Status* error) {
  VmStream* vs = LastResolvedStream(stream);
  if (vs == nullptr) [[unlikely]] {
    absl::StatusOr<VmStream*> resolved = ResolveStream(stream, op);
    if (!resolved.ok()) {
      *error = resolved.status();
      return nullptr;
    }
    vs = *resolved;
  }
  return vs;
}

// Records tensor `t` as one of the `operands` of `args`, in `*slot` and its
// access in `*access`; `write`: the kernel writes it (an output or a
// mutated input; inputs and outputs differ only there). Adds its bytes to
// *bytes (for the inline decision) unless `partial` (the kernel reads only
// the part its other operands pick: KernelCall::gathered_mask) and clears *holds_nothing when
// recording it took a heap block or a reference. Out-parameters, not a returned pair: the compiler
// then keeps both in registers across the operands (a returned pair measured ~20 instructions more
// per op).
[[gnu::always_inline]] inline void AppendOperand(const internal::TensorImpl& t, bool write,
                                                 VmStream* vs, internal::KernelArgs* args,
                                                 uint32_t operands, internal::Operand* slot,
                                                 Access* access, size_t* bytes, bool* holds_nothing,
                                                 bool partial = false) {
  BlobObject* blob = t.blob();
  if (write) {
    blob->NoteWrite(vs);
  } else if (blob->producer() == nullptr) [[unlikely]] {
    args->keep_alive.push_back(t.shared_blob());  // no release will be queued for it
    *holds_nothing = false;
  }
  // The meta the operand points at (Operand::meta): the storage's own when
  // `t` is its whole extent, else a copy that lives as long as `args`.
  const TensorMeta* meta;
  if (const TensorMeta* whole = t.whole_storage_meta.get()) [[likely]] {
    if (!partial) *bytes += blob->nbytes();
    meta = whole;
  } else {
    if (!partial) *bytes += static_cast<size_t>(t.meta.shape.numel()) * SizeOf(t.meta.dtype);
    if (operands > internal::KernelArgs::kInlineMetas) *holds_nothing = false;
    meta = internal::StableMeta(args, t.meta, operands);
  }
  *slot = internal::Operand(blob, meta, t.offset, nullptr);
  *access = Access{blob, write};
}

// Fills the scheduler's view (Instruction::PrepareForScheduler) of a
// finished op call: its inline bytes, and whether its arguments hold
// nothing but temporaries.
[[gnu::always_inline]] inline Instruction* FinishPrepared(Instruction* instr, OpCallPolicy* policy,
                                                          const KernelCall& call, size_t bytes,
                                                          bool holds_nothing) {
  instr->inline_bytes = call.may_run_inline ? bytes : InstructionPolicy::kNotInline;
  instr->donatable = call.never_blocks;
  instr->operand_bytes = bytes < UINT32_MAX ? static_cast<uint32_t>(bytes) : UINT32_MAX;
  EAGERVM_DCHECK(holds_nothing == policy->args().HoldsNothingButTemps(),
                 "NewKernelCall: holds_nothing");
  policy->set_holds_nothing_but_temps(holds_nothing);
  instr->prepared = true;
  return instr;
}
}  // namespace internal_submit

[[gnu::always_inline]] inline Instruction* EagerBuilder::NewKernelCall(const KernelCall& call,
                                                                       const KernelCallArgs& a,
                                                                       Stream stream,
                                                                       absl::Status* error) {
  VmStream* vs = internal_submit::ResolveOrError(stream, call.name, error);
  if (vs == nullptr) [[unlikely]]
    return nullptr;
  if (a.scalars.size() > internal::KernelArgs::kMaxScalars) [[unlikely]] {
    *error = internal_submit::TooManyScalars(call.name);
    return nullptr;
  }
  Instruction* instr = InstructionPool::Acquire();
  OpCallPolicy* policy = instr->Emplace<OpCallPolicy>(call);
  instr->set_stream(vs);
  internal::KernelArgs& args = policy->args();
  // Whether destroying the arguments will do nothing (see FinishPrepared),
  // tracked as they are filled: a few branches the compiler folds, not a
  // re-check.
  bool holds_nothing = a.inputs.size() <= internal::KernelArgs::kInlineInputs &&
                       a.outputs.size() <= internal::KernelArgs::kInlineOutputs;
  if (a.attrs != nullptr && *a.attrs != nullptr) [[unlikely]] {
    args.attrs = *a.attrs;
    holds_nothing = false;
  }
  for (size_t i = 0; i < a.scalars.size(); ++i) args.scalars[i] = a.scalars[i];
  // The scheduler's view is filled here, while the operands are at hand:
  // the storages and the inline bytes.
  const auto num_inputs = static_cast<uint32_t>(a.inputs.size());
  const auto num_outputs = static_cast<uint32_t>(a.outputs.size());
  const uint32_t operands = num_inputs + num_outputs;
  size_t bytes = 0;
  internal::Operand* in = args.inputs.append_uninitialized(num_inputs);
  internal::Operand* out = args.outputs.append_uninitialized(num_outputs);
  Access* access = instr->accesses.append_uninitialized(operands);
  for (uint32_t i = 0; i < num_inputs; ++i) {
    internal_submit::AppendOperand(*internal::ImplOf(*a.inputs[i]), call.mutated_mask.has(i), vs,
                                   &args, operands, &in[i], &access[i], &bytes, &holds_nothing,
                                   call.gathered_mask.has(i));
  }
  for (uint32_t i = 0; i < num_outputs; ++i) {
    internal_submit::AppendOperand(*internal::ImplOf(*a.outputs[i]), /*write=*/true, vs, &args,
                                   operands, &out[i], &access[num_inputs + i], &bytes,
                                   &holds_nothing);
  }
  return internal_submit::FinishPrepared(instr, policy, call, bytes, holds_nothing);
}

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_EAGER_BUILDER_INL_H_
