// RunState: one Graph::Run as the VM sees it: the storages bound to the
// plan's slots for this run, and the launch target whose parts are the
// plan's segments. Each segment instruction holds it; the last one released
// drops it (and with it, possibly, the plan).
#ifndef EAGERVM_GRAPH_RUN_STATE_H_
#define EAGERVM_GRAPH_RUN_STATE_H_

#include <memory>
#include <vector>

#include "graph/plan.h"
#include "vm/policies/launch_policy.h"

namespace eagervm::graph {

class RunState final : public vm::LaunchTarget {
 public:
  // `offsets`: per bound slot, where in its storage the bound tensor starts
  // (a view passed to Run; 0 for whole storages).
  RunState(std::shared_ptr<Plan> plan, std::vector<std::shared_ptr<vm::BlobObject>> bound,
           std::vector<int64_t> offsets)
      : plan_(std::move(plan)), keep_(std::move(bound)), offsets_(std::move(offsets)) {
    for (const auto& b : keep_) bound_.push_back(b.get());
  }
  const char* name(int part) const override { return "LaunchPlan"; }
  // Exactly the storages the segment touches, and the plan's token (written:
  // it orders the segments of all runs of the plan).
  void GetAccesses(int part, vm::AccessList* out) const override {
    for (const auto& [slot, written] : plan_->segments()[part].bound) {
      out->push_back({bound_[slot], written});
    }
    out->push_back({plan_->token(), true});
  }
  size_t InlineBytes(int part) const override { return plan_->segments()[part].inline_bytes; }
  size_t DonatableBytes(int part) const override { return plan_->segments()[part].donatable_bytes; }
  void Compute(int part, vm::VmStream* stream) override {
    plan_->RunSegment(part, stream, bound_, offsets_);
  }

 private:
  std::shared_ptr<Plan> plan_;
  std::vector<std::shared_ptr<vm::BlobObject>> keep_;
  std::vector<vm::BlobObject*> bound_;
  std::vector<int64_t> offsets_;
};

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_RUN_STATE_H_
