#include "vm/engine/engine.h"

#include <algorithm>

#include "base/spin.h"
#include "base/thread_role.h"
#include "vm/diagnostics/trace_hooks.h"
#include "vm/engine/instruction_pool.h"
#include "vm/streams/stream_worker.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::vm {

bool Engine::Schedule(InstructionList* incoming) {
  // Every other member (and StreamPolicy::QueryDone, Run on inline streams,
  // StreamWorker::Enqueue) is reached from here, by the thread driving the
  // engine (the scheduler, or a user thread holding the engine lock).
  EAGERVM_DCHECK_THREAD_ROLE(kScheduler);
  bool progress = false;
  if (!active_streams_.empty()) progress |= RetireFinished();
  if (!barriers_.empty()) progress |= RunBarriers();
  if (!incoming->empty()) {
    Intake(incoming);
    progress = true;
  }
  if (!ready_.empty()) {
    progress |= DispatchReady();
  } else if (!handoff_streams_.empty()) {
    FlushHandoffs();  // what Intake dispatched itself
  }
  counters_->ready_depth.store(static_cast<int64_t>(ready_.size), std::memory_order_relaxed);
  progress |= UpdateCompletionWish();
  return progress;
}

bool Engine::RetireOnly() {
  EAGERVM_DCHECK_THREAD_ROLE(kScheduler);
  bool progress = false;
  if (!active_streams_.empty()) progress |= RetireFinished();
  counters_->ready_depth.store(static_cast<int64_t>(ready_.size), std::memory_order_relaxed);
  progress |= UpdateCompletionWish();
  return progress;
}

// A completion can unblock an instruction waiting for a retirement, a barrier,
// or a ready instruction left for the next pass (RetireOnly's); with none
// of them, a worker in the middle of a batch need not wake the scheduler
// (vm/streams/completion_signal.h). Turning the wish on reports progress, so the
// driver polls once more before it sleeps.
bool Engine::UpdateCompletionWish() {
  if (completions_ == nullptr) return false;
  return completions_->SetEngineWaiting(waiting_count_ > 0 || !barriers_.empty() ||
                                        !ready_.empty());
}

void Engine::RunAlone(Instruction* instr) {
  EAGERVM_DCHECK_THREAD_ROLE(kScheduler);
  EAGERVM_DCHECK(Empty(), "Engine::RunAlone with lively instructions");
  VmStream* s = instr->stream();
  instr->set_state(InstrState::kReady);
  instr->set_state(InstrState::kRunning);
  VmCounters::Add<uint64_t>(counters_->dispatched, 1);
  {
    ComputeSlice trace(instr);
    s->policy()->Run(s, instr);
  }
  EAGERVM_DCHECK(s->policy()->QueryDone(instr), "Engine::RunAlone on a stream that runs later");
  VmCounters::Add<uint64_t>(counters_->finished, 1);
  InstructionPool::Recycle(instr);
}

// The last writer is enough: an earlier writer on the same stream is
// retired before it (in order per stream), one on another stream before it
// is dispatched (the WAW edge waits for the retirement on the CPU).
bool Engine::HasUnretiredWriter(BlobObject& blob) const {
  EAGERVM_DCHECK_THREAD_ROLE(kScheduler);
  return blob.dependence().last_writer.alive();
}

// Retires, per active stream, the finished prefix of its running list. Only
// the head is polled: retirement is in order per stream.
bool Engine::RetireFinished() {
  bool progress = false;
  for (size_t i = 0; i < active_streams_.size();) {
    VmStream* s = active_streams_[i];
    while (!s->running.empty() && s->policy()->QueryDone(s->running.head)) {
      Instruction* instr = s->running.PopFront();
      VmCounters::Add<int64_t>(counters_->running_depth, -1);
      Retire(instr);
      progress = true;
    }
    if (s->running.empty()) {
      s->active = false;
      active_streams_[i] = active_streams_.back();
      active_streams_.pop_back();
    } else {
      ++i;
    }
  }
  return progress;
}

[[gnu::always_inline]] inline void Engine::Retire(Instruction* instr, bool lively) {
  for (Instruction* succ : instr->on_retire) {
    if (--succ->in_degree == 0) MakeReady(succ);
  }
  if (lively) LivelyErase(instr);
  VmCounters::Add<uint64_t>(counters_->finished, 1);
  InstructionPool::Recycle(instr);
}

// Runs barriers whose every predecessor (in arrival order) has been retired.
bool Engine::RunBarriers() {
  bool progress = false;
  while (!barriers_.empty() && barriers_.head == lively_head_) {
    Instruction* b = barriers_.PopFront();
    LivelyErase(b);
    // Count it finished before the callback wakes a Sync(): a caller reading
    // GetStats() right after Sync() must see nothing in flight.
    VmCounters::Add<uint64_t>(counters_->finished, 1);
    VmCounters::Add<uint64_t>(counters_->barriers, 1);
    {
      ComputeSlice trace(b);
      b->policy()->Compute(nullptr);
    }
    InstructionPool::Recycle(b);
    progress = true;
  }
  return progress;
}

void Engine::Intake(InstructionList* list) {
  while (!list->empty()) {
    Instruction* instr = list->PopFront();
    if (instr->policy()->IsBarrier()) {
      LivelyPush(instr);
      instr->set_state(InstrState::kBarrier);
      barriers_.PushBack(instr);
      continue;
    }
    Link(instr);
    if (instr->in_degree == 0 && ready_.empty()) {
      // With nothing ready before it, dispatching it now is what the ready
      // list would do next (it is FIFO), minus the list. It joins the
      // lively list only if it is not retired at once: it is the newest
      // instruction, so it still joins in arrival order.
      instr->set_state(InstrState::kReady);
      Dispatch(instr, /*lively=*/false);
      continue;
    }
    LivelyPush(instr);
    if (instr->in_degree == 0) {
      MakeReady(instr);
    } else {
      instr->set_state(InstrState::kWaiting);
      ++waiting_count_;
    }
  }
}

// The dependence rules (vm/engine/dependence.h), in one pass over the
// accesses. An instruction that reads and
// writes one storage (x += x) gets no self-edge (AddEdge skips it) and may
// end as its last writer and one of its readers: a later writer then has two
// edges from it, which is harmless.
void Engine::Link(Instruction* instr) {
  for (const Access& a : instr->accesses) {
    Dependence& dep = a.blob->dependence();
    if (dep.last_writer.alive()) AddEdge(dep.last_writer, instr);
    if (a.write) {
      for (const InstrRef& r : dep.readers) {
        if (r.alive()) AddEdge(r, instr);
      }
      dep.readers.clear();
      dep.last_writer = instr->ref();
      continue;
    }
    // A retired reader needs no edge: the latest one's slot is reused (a
    // tensor read by every op of a chain keeps one entry, not a growing list).
    if (!dep.readers.empty() && !dep.readers.back().alive()) {
      dep.readers.back() = instr->ref();
      continue;
    }
    if (dep.readers.size() >= dep.compact_readers_at) {
      const InstrRef* live_end = std::remove_if(dep.readers.begin(), dep.readers.end(),
                                                [](const InstrRef& r) { return !r.alive(); });
      dep.readers.truncate(static_cast<uint32_t>(live_end - dep.readers.begin()));
      dep.compact_readers_at =
          std::max<size_t>(Dependence::kCompactReadersAbove, 2 * dep.readers.size());
    }
    dep.readers.push_back(instr->ref());
  }
}

// An edge within one in-order stream is satisfied once the source is
// dispatched (the stream keeps the order), and so is an edge between two
// streams whose device orders them itself (the destination's Run() waits on
// the device for each of its device_waits); any other edge waits for the
// source's retirement.
void Engine::AddEdge(const InstrRef& src_ref, Instruction* dst) {
  EAGERVM_DCHECK(src_ref.alive(), "Engine::AddEdge from a retired instruction");
  Instruction* src = src_ref.instr;
  if (src == dst) return;
  const bool same_stream = src->stream() == dst->stream();
  const bool on_device = !same_stream && dst->stream()->policy()->OrdersOnDevice(*src, *dst);
  if (on_device) dst->device_waits.push_back(src_ref);
  if (same_stream || on_device) {
    // A source already in the ready list is dispatched before `dst`, which can
    // only join that FIFO list later. Without this, a batch dispatches
    // breadth-first (all independent heads, then their successors), so the
    // allocations of later iterations run before the releases of earlier
    // ones and memory grows with the batch (tests/memory_peak_test.cc).
    if (src->state() == InstrState::kRunning || src->state() == InstrState::kReady) return;
    src->on_dispatch.push_back(dst);
  } else {
    src->on_retire.push_back(dst);
  }
  ++dst->in_degree;
}

void Engine::MakeReady(Instruction* instr) {
  if (instr->state() == InstrState::kWaiting) --waiting_count_;
  instr->set_state(InstrState::kReady);
  ready_.PushBack(instr);
}

bool Engine::DispatchReady() {
  bool progress = false;
  while (!ready_.empty()) {
    Dispatch(ready_.PopFront());
    progress = true;
  }
  FlushHandoffs();
  return progress;
}

// A small instruction runs on this thread when that keeps the stream's order:
// nothing dispatched before it on its stream is still running (the worker
// finishes in order, so the running list's tail being done means all are) and
// nothing is waiting to be handed over. A handoff costs more than the kernel.
// When a submitting thread drives the engine (donor_), its own
// instructions run here whatever their size, blocking collectives included:
// that thread waits for them anyway, and the worker is idle (the same check).
bool Engine::RunsInline(const VmStream* s, const Instruction* instr) const {
  if (!s->handoff.empty()) return false;
  if (!s->running.empty() && !s->running.tail->done()) return false;
  if (donor_ && instr->donated) return true;
  return inline_max_bytes_ != 0 && instr->inline_bytes != InstructionPolicy::kNotInline &&
         instr->inline_bytes <= inline_max_bytes_;
}

void Engine::FlushHandoffs() {
  for (VmStream* s : handoff_streams_) {
    if (s->handoff.size() > 1) VmCounters::Add<uint64_t>(counters_->batched, s->handoff.size() - 1);
    s->worker()->Enqueue(&s->handoff);
  }
  handoff_streams_.clear();
}

void Engine::Dispatch(Instruction* instr, bool lively) {
  VmStream* s = instr->stream();
  const bool inline_run = s->worker() == nullptr || RunsInline(s, instr);
  instr->set_state(InstrState::kRunning);
  if (stamp_dispatch_) [[unlikely]]
    instr->dispatched_ns = base::NowNanos();
  VmCounters::Add<uint64_t>(counters_->dispatched, 1);
  // Successors on the same stream may be dispatched right behind it.
  for (Instruction* succ : instr->on_dispatch) {
    if (--succ->in_degree == 0) MakeReady(succ);
  }
  instr->on_dispatch.clear();
  if (inline_run) {
    // VmStats::inlined counts what the scheduler ran in a worker's stead,
    // not what a submitting thread ran for itself.
    if (s->worker() != nullptr && !(donor_ && instr->donated)) {
      VmCounters::Add<uint64_t>(counters_->inlined, 1);
    }
    ComputeSlice trace(instr);
    if (stamp_dispatch_) [[unlikely]]
      inline_op_.store(instr->policy()->name(), std::memory_order_relaxed);
    const bool was_idle = s->running.empty();
    // A RunIsCompute stream's Run is the compute plus the done mark: done
    // here, without the virtual call.
    const bool direct = s->run_is_compute();
    if (direct) {
      instr->policy()->Compute(s);
    } else {
      s->policy()->Run(s, instr);
    }
    if (stamp_dispatch_) [[unlikely]]
      inline_op_.store(nullptr, std::memory_order_relaxed);
    // Finished here with nothing before it on its stream unretired (retirement
    // is in order per stream): retired now, not in a later pass through the
    // stream's running list (and no one need ask whether it is done).
    if (was_idle && (direct || s->policy()->QueryDone(instr))) {
      Retire(instr, lively);
      return;
    }
    if (direct) instr->MarkDone();
  }
  if (!lively) LivelyPush(instr);
  s->running.PushBack(instr);
  VmCounters::Add<int64_t>(counters_->running_depth, 1);
  if (!s->active) {
    s->active = true;
    active_streams_.push_back(s);
  }
  if (!inline_run) {
    if (s->handoff.empty()) handoff_streams_.push_back(s);
    s->handoff.push_back(instr);
  }
}

void Engine::LivelyPush(Instruction* instr) {
  instr->lively_prev = lively_tail_;
  instr->lively_next = nullptr;
  if (lively_tail_)
    lively_tail_->lively_next = instr;
  else
    lively_head_ = instr;
  lively_tail_ = instr;
  ++lively_count_;
}

void Engine::LivelyErase(Instruction* instr) {
  if (instr->lively_prev)
    instr->lively_prev->lively_next = instr->lively_next;
  else
    lively_head_ = instr->lively_next;
  if (instr->lively_next)
    instr->lively_next->lively_prev = instr->lively_prev;
  else
    lively_tail_ = instr->lively_prev;
  instr->lively_prev = instr->lively_next = nullptr;
  --lively_count_;
}

}  // namespace eagervm::vm
