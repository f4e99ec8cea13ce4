// VmStream: the runtime side of a Stream: its policy, the thread that serves
// it and (scheduler thread only) its running list.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_STREAMS_VM_STREAM_H_
#define EAGERVM_VM_STREAMS_VM_STREAM_H_

#include <memory>
#include <vector>

#include "eagervm/stream.h"
#include "vm/engine/instruction.h"
#include "vm/streams/stream_policy.h"

namespace eagervm::vm {

class StreamWorker;
class VmContext;

class VmStream {
 public:
  VmStream(Stream id, std::unique_ptr<StreamPolicy> policy, StreamWorker* worker,
           VmContext* context)
      : id_(id),
        policy_(std::move(policy)),
        worker_(worker),
        context_(context),
        run_is_compute_(policy_->RunIsCompute()) {}
  VmStream(const VmStream&) = delete;
  VmStream& operator=(const VmStream&) = delete;

  Stream id() const { return id_; }
  StreamPolicy* policy() const { return policy_.get(); }
  memory::Allocator* allocator() const { return policy_->allocator(); }
  // nullptr when the stream runs on the scheduler thread.
  StreamWorker* worker() const { return worker_; }
  // The VM that owns the stream, for the code it runs (error sink, options).
  VmContext* context() const { return context_; }
  // StreamPolicy::RunIsCompute(), read once.
  bool run_is_compute() const { return run_is_compute_; }

  // --- scheduler thread only ---
  // On their own cache line: submitting threads read id() on every op, and
  // the scheduler writes these on every op.
  alignas(64) InstructionList running;  // dispatched, not yet retired, in dispatch order
  bool active = false;                  // in the engine's active-stream list
  // Dispatched in this scheduling pass, to be handed to the worker together.
  std::vector<Instruction*> handoff;

 private:
  Stream id_;
  std::unique_ptr<StreamPolicy> policy_;
  StreamWorker* worker_;
  VmContext* context_;
  bool run_is_compute_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAMS_VM_STREAM_H_
