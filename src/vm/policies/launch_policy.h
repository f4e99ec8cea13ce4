// LaunchPolicy: one instruction that runs a part of a job a layer above the
// VM prepared (a graph plan's segment, src/graph/). The VM sees only what any
// instruction shows it: the storages the part reads and writes, and a
// Compute on the part's stream; the dependence rules do the rest.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_POLICIES_LAUNCH_POLICY_H_
#define EAGERVM_VM_POLICIES_LAUNCH_POLICY_H_

#include <memory>

#include "vm/engine/instruction_policy.h"

namespace eagervm::vm {

// The job. Its methods are called for one part at a time: GetAccesses on the
// scheduler thread at intake; InlineBytes there too; Compute on the part's
// stream thread, after every instruction the part depends on.
class LaunchTarget {
 public:
  virtual ~LaunchTarget() = default;
  virtual const char* name(int part) const = 0;
  virtual void GetAccesses(int part, AccessList* out) const = 0;
  virtual size_t InlineBytes(int part) const { return InstructionPolicy::kNotInline; }
  // Automatic donation (vm/lifecycle/donate.h): the bytes `part` touches if
  // it never blocks (it may then run on the submitting thread when the VM is
  // idle and it is the only instruction submitted), else kNotDonatable.
  static constexpr size_t kNotDonatable = ~size_t{0};
  virtual size_t DonatableBytes(int part) const { return kNotDonatable; }
  // Never throws; failures are recorded as data, as OpCallPolicy does.
  virtual void Compute(int part, VmStream* stream) = 0;
};

class LaunchPolicy final : public InstructionPolicy {
 public:
  LaunchPolicy(std::shared_ptr<LaunchTarget> target, int part)
      : target_(std::move(target)), part_(part) {}
  const char* name() const override { return target_->name(part_); }
  void GetAccesses(AccessList* out) const override { target_->GetAccesses(part_, out); }
  size_t InlineBytes() const override { return target_->InlineBytes(part_); }
  void Compute(VmStream* stream) override { target_->Compute(part_, stream); }

 private:
  std::shared_ptr<LaunchTarget> target_;  // dropped when the instruction is recycled
  int part_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_POLICIES_LAUNCH_POLICY_H_
