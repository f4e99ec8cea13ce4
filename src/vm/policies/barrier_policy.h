// BarrierPolicy: runs a callback on the scheduler thread once every
// instruction received before it has been retired (Sync, GlobalSync,
// InstructionsBuilder::Barrier).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_POLICIES_BARRIER_POLICY_H_
#define EAGERVM_VM_POLICIES_BARRIER_POLICY_H_

#include <functional>

#include "vm/engine/instruction_policy.h"

namespace eagervm::vm {

class VmContext;

class BarrierPolicy final : public InstructionPolicy {
 public:
  // `name` lives forever; `context` is the VM's, for a callback that throws.
  BarrierPolicy(std::function<void()> cb, const char* name, VmContext* context)
      : cb_(std::move(cb)), name_(name), context_(context) {}
  const char* name() const override { return name_; }
  void GetAccesses(AccessList*) const override {}
  bool IsBarrier() const override { return true; }
  // Scheduler thread. A throwing callback is reported by the next Sync().
  void Compute(VmStream*) override;

 private:
  std::function<void()> cb_;
  const char* name_;
  VmContext* context_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_POLICIES_BARRIER_POLICY_H_
