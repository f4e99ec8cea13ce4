// Instruction: one unit of VM work: a stream, a policy (constructed in an
// inline buffer), dependence edges and a state (see instruction_state.h).
// Instructions come from a pool and are never freed, which lets dependences
// hold (pointer, id) references that go stale safely at retirement.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_ENGINE_INSTRUCTION_H_
#define EAGERVM_VM_ENGINE_INSTRUCTION_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "base/check.h"
#include "base/small_vector.h"
#include "vm/engine/dependence.h"
#include "vm/engine/instruction_policy.h"
#include "vm/engine/instruction_state.h"

namespace eagervm::vm {

class VmStream;

class Instruction {
 public:
  // Every policy lives inline in the instruction (Emplace asserts the fit):
  // no allocation per instruction. The largest is OpCallPolicy, whose
  // KernelArgs keep an op's operands, metas and scalars inline (552 bytes on
  // x86-64 with GCC 12; vm/policies/op_call_policy.cc asserts it fits); the
  // rest leaves room for KernelArgs to grow without a heap block per op.
  static constexpr size_t kPolicyBufferSize = 1280;

  Instruction() = default;
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  template <typename Policy, typename... Args>
  Policy* Emplace(Args&&... args) {
    static_assert(sizeof(Policy) <= kPolicyBufferSize, "policy does not fit the inline buffer");
    static_assert(alignof(Policy) <= alignof(std::max_align_t));
    Policy* p = new (policy_buffer_) Policy(std::forward<Args>(args)...);
    policy_ = p;
    return p;
  }
  void DestroyPolicy() {
    if (policy_ != nullptr && !policy_->destructor_is_noop()) policy_->~InstructionPolicy();
    policy_ = nullptr;
  }

  InstructionPolicy* policy() const { return policy_; }
  VmStream* stream() const { return stream_; }
  void set_stream(VmStream* s) { stream_ = s; }
  InstrState state() const { return state_; }
  // Every state change, InstructionPool's included, goes through here and is
  // checked against the legal transitions (instruction_state.h) in debug and
  // sanitizer builds; in release builds it is a plain store.
  void set_state(InstrState s) {
    EAGERVM_DCHECK(
        IsLegalTransition(state_, s),
        DescribeTransition(state_, s, policy_ != nullptr ? policy_->name() : nullptr, id()));
    state_ = s;
  }
  uint64_t id() const { return id_.load(std::memory_order_relaxed); }
  InstrRef ref() { return InstrRef{this, id()}; }
  // A stale reference may be checked while another thread re-acquires this
  // instruction from the pool and writes a new id: hence the atomic. Relaxed
  // suffices: ids go stale (Recycle) on the thread driving the engine, the
  // only one that checks them, so it never reads an id older than its own write.
  bool IsAlive(const InstrRef& r) const {
    const uint64_t id = id_.load(std::memory_order_relaxed);
    return r.instr == this && r.id == id && id != 0;
  }

  // Set by the thread that ran the compute; read by the scheduler.
  bool done() const { return done_.load(std::memory_order_acquire); }
  void MarkDone() { done_.store(true, std::memory_order_release); }

  // Filled by the submitting thread, where the policy's operands are still
  // in cache, and read by the scheduler: the storages it touches, and the
  // bytes for VmOptions::inline_max_bytes. A builder that knows them while it
  // builds (EagerBuilder::CallKernel) fills them itself and sets `prepared`;
  // SubmissionQueue::Append asks the policy for the others.
  void PrepareForScheduler() {
    if (prepared) return;
    policy_->GetAccesses(&accesses);
    inline_bytes = policy_->InlineBytes();
    prepared = true;
  }
  AccessList accesses;  // emptied by InstructionPool::Acquire
  size_t inline_bytes = InstructionPolicy::kNotInline;
  bool prepared = false;
  // Set by the submitting thread when it drives the engine itself
  // (VmImpl::Donate, vm/lifecycle/donate.h): the engine may then run this
  // instruction on that thread whatever its size, once its stream is idle.
  bool donated = false;
  // Automatic donation (vm/lifecycle/donate.h): the instruction never blocks
  // (an op call of an OpDef::never_blocks op, a tensor release), and its
  // operands' bytes (saturated), compared with VmOptions::donate_max_bytes.
  bool donatable = false;
  uint32_t operand_bytes = 0;

  // The pending stack (SubmissionQueue): set on a pushed list's head by the
  // submitting thread, read by the scheduler when it takes the stack.
  Instruction* batch_next = nullptr;  // the list pushed before this one
  Instruction* batch_tail = nullptr;  // the last instruction of this list
  size_t batch_size = 0;

  // --- scheduler thread only ---
  Instruction* next = nullptr;  // the one FIFO list it is in
  Instruction* lively_prev = nullptr;
  Instruction* lively_next = nullptr;
  int32_t in_degree = 0;
  base::SmallVector<Instruction*, 2> on_dispatch;  // same-stream successors
  base::SmallVector<Instruction*, 2> on_retire;    // other successors
  // Cross-stream predecessors whose order this instruction's device enforces
  // itself (StreamPolicy::OrdersOnDevice). Consumed and cleared by the
  // stream policy's Run(); a predecessor already retired needs no wait.
  base::SmallVector<InstrRef, 1> device_waits;
  // Owned by the policy of the stream that runs the instruction (the CUDA
  // policy keeps its launch sequence number here).
  uint64_t policy_word = 0;
  // base::NowNanos() at dispatch, when hang diagnostics are on (Engine).
  int64_t dispatched_ns = 0;

 private:
  friend class InstructionPool;
  alignas(std::max_align_t) unsigned char policy_buffer_[kPolicyBufferSize];
  InstructionPolicy* policy_ = nullptr;
  VmStream* stream_ = nullptr;
  std::atomic<uint64_t> id_{0};
  InstrState state_ = InstrState::kFree;
  std::atomic<bool> done_{false};
};

// A singly linked FIFO through Instruction::next.
struct InstructionList {
  Instruction* head = nullptr;
  Instruction* tail = nullptr;
  size_t size = 0;

  bool empty() const { return head == nullptr; }
  void PushBack(Instruction* i) {
    i->next = nullptr;
    if (tail)
      tail->next = i;
    else
      head = i;
    tail = i;
    ++size;
  }
  Instruction* PopFront() {
    Instruction* i = head;
    head = i->next;
    if (head == nullptr) tail = nullptr;
    i->next = nullptr;
    --size;
    return i;
  }
  void Splice(InstructionList* other) {
    if (other->empty()) return;
    if (tail)
      tail->next = other->head;
    else
      head = other->head;
    tail = other->tail;
    size += other->size;
    *other = InstructionList();
  }
};

inline bool InstrRef::alive() const { return instr != nullptr && instr->IsAlive(*this); }

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ENGINE_INSTRUCTION_H_
