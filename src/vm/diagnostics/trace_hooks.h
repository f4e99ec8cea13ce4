// The VM's trace hooks: one line each in the engine, the workers and Receive.
// Each is a single relaxed load and a branch when no trace is recording. VM
// code built on the profiler (vm -> profiler; the profiler knows no VM).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_DIAGNOSTICS_TRACE_HOOKS_H_
#define EAGERVM_VM_DIAGNOSTICS_TRACE_HOOKS_H_

#include <cstdint>

#include "profiler/tracer.h"

namespace eagervm::vm {

class Instruction;
struct InstructionList;
class VmImpl;

// Around a stream's Run (or a barrier's compute): a slice named by the
// instruction's policy, category "compute". Must start before the
// instruction can be marked done (StopTrace relies on it).
class ComputeSlice {
 public:
  explicit ComputeSlice(const Instruction* instr) {
    if (profiler::Enabled()) Begin(instr);
  }
  ~ComputeSlice() {
    if (buffer_ != nullptr) End();
  }
  ComputeSlice(const ComputeSlice&) = delete;
  ComputeSlice& operator=(const ComputeSlice&) = delete;

 private:
  void Begin(const Instruction* instr);
  void End();

  profiler::ThreadBuffer* buffer_ = nullptr;
  // Set by Begin(), read only when buffer_ is (no stores per op untraced).
  const char* name_;
  int64_t start_ns_;
};

// Around VmImpl::Receive: a slice on the user's row named by the first
// instruction's policy, category "submit", args.n = instructions in the list.
// Construct before the list is handed over (it reads the list).
class SubmitSlice {
 public:
  explicit SubmitSlice(const InstructionList* list)
      : slice_("submit", profiler::Enabled() ? FirstName(list) : nullptr) {
    if (profiler::Enabled()) slice_.set_arg(Count(list));
  }
  // The same for a list of one instruction.
  explicit SubmitSlice(const Instruction* instr)
      : slice_("submit", profiler::Enabled() ? Name(instr) : nullptr) {
    if (profiler::Enabled()) slice_.set_arg(1);
  }

 private:
  static const char* FirstName(const InstructionList* list);
  static const char* Name(const Instruction* instr);
  static int64_t Count(const InstructionList* list);
  profiler::ScopedSlice slice_;
};

// Around one scheduler pass: a slice "schedule" (kept only if the pass moved
// something, args.n = instructions taken in) and, when it did, the queue
// depth counters; bytes in use per device at most every 200 us.
class PassTrace {
 public:
  PassTrace() : start_ns_(profiler::Enabled() ? profiler::NowNs() : -1) {}
  PassTrace(const PassTrace&) = delete;
  PassTrace& operator=(const PassTrace&) = delete;
  void End(bool progress, int64_t taken_in, VmImpl* vm) {
    if (start_ns_ >= 0 && progress) Record(taken_in, vm);
  }

 private:
  void Record(int64_t taken_in, VmImpl* vm);
  int64_t start_ns_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_DIAGNOSTICS_TRACE_HOOKS_H_
