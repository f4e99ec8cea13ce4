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
}  // namespace internal_submit

[[gnu::always_inline]] inline const TensorMeta* EagerBuilder::OperandMeta(
    const internal::TensorImpl& t, internal::KernelArgs* args, uint32_t operands, size_t* bytes,
    bool* holds_nothing) {
  if (const TensorMeta* whole = t.whole_storage_meta.get()) [[likely]] {
    *bytes += t.blob()->nbytes();
    return whole;
  }
  *bytes += static_cast<size_t>(t.meta.shape.numel()) * SizeOf(t.meta.dtype);
  if (operands > internal::KernelArgs::kInlineMetas) *holds_nothing = false;
  return internal::StableMeta(args, t.meta, operands);
}

[[gnu::always_inline]] inline Instruction* EagerBuilder::NewKernelCall(const KernelCall& call,
                                                                       const KernelCallArgs& a,
                                                                       Stream stream,
                                                                       absl::Status* error) {
  VmStream* vs = LastResolvedStream(stream);
  if (vs == nullptr) [[unlikely]] {
    absl::StatusOr<VmStream*> resolved = ResolveStream(stream, call.name);
    if (!resolved.ok()) {
      *error = resolved.status();
      return nullptr;
    }
    vs = *resolved;
  }
  if (a.scalars.size() > internal::KernelArgs::kMaxScalars) [[unlikely]] {
    *error = internal_submit::TooManyScalars(call.name);
    return nullptr;
  }
  Instruction* instr = InstructionPool::Acquire();
  OpCallPolicy* policy = instr->Emplace<OpCallPolicy>(call);
  instr->set_stream(vs);
  internal::KernelArgs& args = policy->args();
  // Whether destroying the arguments will do nothing (see below), tracked
  // as they are filled: a few branches the compiler folds, not a re-check.
  bool holds_nothing = a.inputs.size() <= internal::KernelArgs::kInlineInputs &&
                       a.outputs.size() <= internal::KernelArgs::kInlineOutputs;
  if (a.attrs != nullptr && *a.attrs != nullptr) [[unlikely]] {
    args.attrs = *a.attrs;
    holds_nothing = false;
  }
  for (size_t i = 0; i < a.scalars.size(); ++i) args.scalars[i] = a.scalars[i];
  // The scheduler's view (Instruction::PrepareForScheduler) is filled here,
  // while the operands are at hand: the storages and the inline bytes.
  const auto num_inputs = static_cast<uint32_t>(a.inputs.size());
  const auto num_outputs = static_cast<uint32_t>(a.outputs.size());
  const uint32_t operands = num_inputs + num_outputs;
  size_t bytes = 0;
  internal::Operand* in = args.inputs.append_uninitialized(num_inputs);
  internal::Operand* out = args.outputs.append_uninitialized(num_outputs);
  Access* access = instr->accesses.append_uninitialized(operands);
  for (uint32_t i = 0; i < num_inputs; ++i) {
    const internal::TensorImpl& t = *a.inputs[i]->impl();
    BlobObject* blob = t.blob();
    const bool write = call.mutates(static_cast<int>(i));
    if (write) {
      blob->NoteWrite(vs);
    } else if (blob->producer() == nullptr) [[unlikely]] {
      args.keep_alive.push_back(t.shared_blob());  // no release will be queued for it
      holds_nothing = false;
    }
    in[i] = internal::Operand(blob, OperandMeta(t, &args, operands, &bytes, &holds_nothing),
                              t.offset, nullptr);
    access[i] = Access{blob, write};
  }
  for (uint32_t i = 0; i < num_outputs; ++i) {
    const internal::TensorImpl& t = *a.outputs[i]->impl();
    BlobObject* blob = t.blob();
    blob->NoteWrite(vs);
    out[i] = internal::Operand(blob, OperandMeta(t, &args, operands, &bytes, &holds_nothing),
                               t.offset, nullptr);
    access[num_inputs + i] = Access{blob, true};
  }
  instr->inline_bytes = call.may_run_inline ? bytes : InstructionPolicy::kNotInline;
  instr->donatable = call.never_blocks;
  instr->operand_bytes = bytes < UINT32_MAX ? static_cast<uint32_t>(bytes) : UINT32_MAX;
  EAGERVM_DCHECK(holds_nothing == args.HoldsNothingButTemps(), "NewKernelCall: holds_nothing");
  policy->set_holds_nothing_but_temps(holds_nothing);
  instr->prepared = true;
  return instr;
}

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_EAGER_BUILDER_INL_H_
