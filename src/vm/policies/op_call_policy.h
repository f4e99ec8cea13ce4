// OpCallPolicy: runs one kernel. Reads its inputs (writes the mutated ones),
// writes its outputs, allocating them on first write. Failures become data:
// the outputs carry the error and dependents forward it without computing.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_POLICIES_OP_CALL_POLICY_H_
#define EAGERVM_VM_POLICIES_OP_CALL_POLICY_H_

#include "vm/engine/instruction_policy.h"
#include "vm/kernel_args.h"
#include "vm/kernel_call.h"

namespace eagervm::vm {

class OpCallPolicy final : public InstructionPolicy {
 public:
  explicit OpCallPolicy(const KernelCall& call) : name_(call.name), kernel_(call.kernel) {
    args_.mutated_mask = call.mutated_mask;
    overwritten_mask_ = call.overwritten_mask;
  }
  const char* name() const override { return name_; }
  // Unreachable: an op call is built prepared (EagerBuilder::NewKernelCall
  // records its accesses and inline bytes), so the engine never asks.
  void GetAccesses(AccessList* out) const override;
  void Compute(VmStream* stream) override;

  internal::KernelArgs& args() { return args_; }
  // Set by the builder once the arguments are complete: true if, the
  // kernel's temporaries aside, destroying them would do nothing (no
  // attributes, nothing kept alive, operands inline). Compute() clears it
  // if the kernel's temporaries took a heap block
  // (InstructionPolicy::destructor_is_noop).
  void set_holds_nothing_but_temps(bool v) { destructor_is_noop_ = v; }

 private:
  void Poison(const ErrorPtr& error);
  // Input i carries an error (forwarded to the outputs) or was never written.
  void RefuseInput(VmStream* stream, size_t i);
  void Fail(VmStream* stream, absl::Status s);
  static absl::Status PrepareWrite(VmStream* stream, internal::Operand& o, bool* fresh);

  const char* name_;
  const KernelFn* kernel_;
  // The inputs written without being read (OpOptions::overwritten_inputs).
  internal::MutatedMask overwritten_mask_;
  internal::KernelArgs args_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_POLICIES_OP_CALL_POLICY_H_
