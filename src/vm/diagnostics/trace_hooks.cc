#include "vm/diagnostics/trace_hooks.h"

#include <atomic>

#include "base/str_cat.h"
#include "vm/engine/instruction.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm::vm {
namespace {
constexpr int64_t kMemorySampleNs = 200'000;
std::atomic<int64_t> last_memory_sample_ns{0};
}  // namespace

void ComputeSlice::Begin(const Instruction* instr) {
  buffer_ = profiler::CurrentThreadBuffer();
  if (buffer_ == nullptr) return;
  buffer_->BeginCompute();
  name_ = instr->policy()->name();
  start_ns_ = profiler::NowNs();
}

void ComputeSlice::End() {
  profiler::EmitSlice("compute", name_, start_ns_, profiler::NowNs());
  buffer_->EndCompute();
}

const char* SubmitSlice::FirstName(const InstructionList* list) {
  return list->head != nullptr ? Name(list->head) : "submit";
}

const char* SubmitSlice::Name(const Instruction* instr) { return instr->policy()->name(); }

int64_t SubmitSlice::Count(const InstructionList* list) { return static_cast<int64_t>(list->size); }

void PassTrace::Record(int64_t taken_in, VmImpl* vm) {
  const int64_t end_ns = profiler::NowNs();
  profiler::EmitSlice("scheduler", "schedule", start_ns_, end_ns, taken_in);
  const VmCounters& c = vm->counters();
  profiler::EmitCounter("pending", c.pending_depth());
  profiler::EmitCounter("running", c.running_depth.load(std::memory_order_relaxed));
  profiler::EmitCounter("in flight", c.in_flight());
  int64_t last = last_memory_sample_ns.load(std::memory_order_relaxed);
  if (end_ns - last < kMemorySampleNs ||
      !last_memory_sample_ns.compare_exchange_strong(last, end_ns, std::memory_order_relaxed)) {
    return;
  }
  for (const MemoryStats& m : vm->GetStats().memory) {
    profiler::EmitCounter(profiler::Intern(base::Cat("bytes in use ", m.device).c_str()),
                          m.bytes_in_use);
  }
}

}  // namespace eagervm::vm
