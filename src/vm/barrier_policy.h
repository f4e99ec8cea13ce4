// BarrierPolicy: runs a callback on the scheduler thread once every
// instruction received before it has been released (Sync, GlobalSync).
#ifndef EAGERVM_VM_BARRIER_POLICY_H_
#define EAGERVM_VM_BARRIER_POLICY_H_

#include <functional>

#include "vm/instruction_policy.h"

namespace eagervm::vm {

class BarrierPolicy final : public InstructionPolicy {
 public:
  explicit BarrierPolicy(std::function<void()> cb) : cb_(std::move(cb)) {}
  const char* name() const override { return "Barrier"; }
  void GetAccesses(AccessList*) const override {}
  bool IsBarrier() const override { return true; }
  void Compute(VmStream*) override {
    if (cb_) cb_();
  }

 private:
  std::function<void()> cb_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_BARRIER_POLICY_H_
