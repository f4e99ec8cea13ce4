// OpCallPolicy: runs one kernel. Reads its inputs (writes the mutated ones),
// writes its outputs, allocating them on first write. Failures become data:
// the outputs carry the error and dependents forward it without computing.
#ifndef EAGERVM_VM_OP_CALL_POLICY_H_
#define EAGERVM_VM_OP_CALL_POLICY_H_

#include "ops/op_def.h"
#include "vm/instruction_policy.h"
#include "vm/kernel_args.h"

namespace eagervm::vm {

class OpCallPolicy final : public InstructionPolicy {
 public:
  OpCallPolicy(const internal::OpDef* def, const KernelFn* kernel) : def_(def), kernel_(kernel) {}
  const char* name() const override { return def_->name.c_str(); }
  void GetAccesses(AccessList* out) const override;
  void Compute(VmStream* stream) override;
  size_t InlineBytes() const override;

  internal::KernelArgs& args() { return args_; }
  const internal::OpDef* def() const { return def_; }

 private:
  void Poison(const ErrorPtr& error);

  const internal::OpDef* def_;
  const KernelFn* kernel_;
  internal::KernelArgs args_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_OP_CALL_POLICY_H_
