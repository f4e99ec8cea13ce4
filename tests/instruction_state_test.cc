// The instruction state machine (src/vm/engine/instruction_state.h), exercised on a
// real Engine: fake stream policies run every compute inline on this thread
// (or on a real stream worker), and "the device finished" only when the test
// says so. Fake instruction policies record, at each compute, the state of
// every instruction of the test, so the tests assert the states instructions
// pass through, not a copy of the table. In builds where EAGERVM_DCHECK is on
// (debug, sanitizers), a transition the table does not allow aborts, so an
// engine move missing from the table fails every test here; death tests show
// that illegal moves and scheduler work off the scheduler thread abort.
#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/check.h"
#include "base/notifier.h"
#include "base/thread_role.h"
#include "vm/diagnostics/vm_counters.h"
#include "vm/engine/engine.h"
#include "vm/engine/instruction_pool.h"
#include "vm/streams/stream_policy.h"
#include "vm/streams/stream_worker.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::vm {
namespace {

using S = InstrState;

// What happened, in order. `snapshots` holds, per compute, "tag:state" for
// every instruction the test made (a released one reads "free").
struct Log {
  struct Tracked {
    Instruction* instr;
    InstrRef ref;
  };
  std::map<int, Tracked> tracked;
  bool snapshot_all = true;  // off when computes run on a worker (the states race)
  std::mutex mu;             // guards the vectors below
  std::vector<int> computed;
  std::map<int, std::string> snapshots;     // by tag of the computing instruction
  std::map<int, S> own_state_at_compute;    // by tag
  std::map<int, bool> own_done_at_compute;  // by tag
  std::vector<int> destroyed;               // policy destructors, i.e. recycles

  S StateOf(int tag) {
    const Tracked& t = tracked.at(tag);
    if (t.instr->IsAlive(t.ref)) return t.instr->state();
    // Stale: recycled (and perhaps handed out again since).
    if (t.instr->id() == 0) EXPECT_EQ(t.instr->state(), S::kFree) << "tag " << tag;
    return S::kFree;
  }
  std::string Snapshot() {
    std::string out;
    for (const auto& [tag, t] : tracked) {
      if (!out.empty()) out += ' ';
      out += std::to_string(tag) + ":" + ToString(StateOf(tag));
    }
    return out;
  }
};

// An instruction that touches the given storages and records its compute.
class Probe final : public InstructionPolicy {
 public:
  Probe(Log* log, int tag, std::vector<Access> accesses, bool barrier)
      : log_(log), tag_(tag), accesses_(std::move(accesses)), barrier_(barrier) {}
  ~Probe() override {
    std::lock_guard<std::mutex> lock(log_->mu);
    log_->destroyed.push_back(tag_);
  }
  const char* name() const override { return barrier_ ? "ProbeBarrier" : "Probe"; }
  void GetAccesses(AccessList* out) const override {
    for (const Access& a : accesses_) out->push_back(a);
  }
  bool IsBarrier() const override { return barrier_; }
  void Compute(VmStream*) override {
    const std::string snapshot = log_->snapshot_all ? log_->Snapshot() : "";
    std::lock_guard<std::mutex> lock(log_->mu);
    log_->computed.push_back(tag_);
    log_->snapshots[tag_] = snapshot;
    log_->own_state_at_compute[tag_] = self->state();
    log_->own_done_at_compute[tag_] = self->done();
  }
  int tag() const { return tag_; }
  Instruction* self = nullptr;

 private:
  Log* log_;
  int tag_;
  std::vector<Access> accesses_;
  bool barrier_;
};

// A stream whose Run() computes at once. With `auto_done`, done right after
// (a CPU stream); otherwise done when the test calls Finish() (a device that
// completes later). `orders_on_device`: satisfies edges from other such
// streams at dispatch, like CUDA streams with events.
class FakeStream final : public StreamPolicy {
 public:
  FakeStream(bool auto_done, bool orders_on_device, bool on_scheduler_thread)
      : auto_done_(auto_done), orders_(orders_on_device), on_scheduler_(on_scheduler_thread) {}
  Device device() const override { return Device::Cpu(); }
  memory::Allocator* allocator() override { return nullptr; }
  bool OnSchedulerThread() const override { return on_scheduler_; }
  bool OrdersOnDevice(const Instruction& src, const Instruction&) const override {
    return orders_ && static_cast<const FakeStream*>(src.stream()->policy())->orders_;
  }
  void Run(VmStream* stream, Instruction* instr) override {
    for (const InstrRef& r : instr->device_waits) {
      if (r.instr->IsAlive(r)) {
        device_waits[static_cast<Probe*>(instr->policy())->tag()].push_back(
            static_cast<Probe*>(r.instr->policy())->tag());
      }
    }
    instr->device_waits.clear();
    instr->policy()->Compute(stream);
    if (auto_done_) instr->MarkDone();
  }
  bool QueryDone(const Instruction* instr) const override { return instr->done(); }

  std::map<int, std::vector<int>> device_waits;  // by tag: alive device-wait sources

 private:
  bool auto_done_;
  bool orders_;
  bool on_scheduler_;
};

class EngineStates : public ::testing::Test {
 protected:
  VmStream* AddStream(bool auto_done = false, bool orders_on_device = false) {
    streams_.push_back(std::make_unique<VmStream>(
        Stream(Device::Cpu(), static_cast<int>(streams_.size())),
        std::make_unique<FakeStream>(auto_done, orders_on_device, /*on_scheduler_thread=*/true),
        nullptr, /*context=*/nullptr));
    return streams_.back().get();
  }
  // A stream served by a real worker thread (StreamWorker), done when computed.
  VmStream* AddWorkerStream() {
    workers_.push_back(std::make_unique<StreamWorker>("evm-test", &completions_, /*spin_ns=*/0));
    streams_.push_back(std::make_unique<VmStream>(
        Stream(Device::Cpu(), static_cast<int>(streams_.size())),
        std::make_unique<FakeStream>(/*auto_done=*/true, false, /*on_scheduler_thread=*/false),
        workers_.back().get(), /*context=*/nullptr));
    return streams_.back().get();
  }
  BlobObject* Blob() {
    blobs_.push_back(std::make_unique<BlobObject>(16, Device::Cpu()));
    return blobs_.back().get();
  }
  Instruction* Build(int tag, VmStream* stream, std::vector<Access> accesses,
                     bool barrier = false) {
    Instruction* i = InstructionPool::Acquire();
    Probe* p = i->Emplace<Probe>(&log_, tag, std::move(accesses), barrier);
    p->self = i;
    i->set_stream(stream);
    log_.tracked[tag] = {i, i->ref()};
    return i;
  }
  Instruction* BuildBarrier(int tag) { return Build(tag, nullptr, {}, /*barrier=*/true); }
  // What VmImpl::Receive does with a list it accepts.
  void Accept(InstructionList* list) {
    for (Instruction* i = list->head; i != nullptr; i = i->next) {
      i->PrepareForScheduler();
      i->set_state(S::kPending);
    }
  }
  // Accepts `instrs` and runs one scheduling pass with them.
  void Submit(const std::vector<Instruction*>& instrs) {
    InstructionList list;
    for (Instruction* i : instrs) list.PushBack(i);
    Accept(&list);
    engine_.Schedule(&list);
  }
  bool Pass() {
    InstructionList none;
    return engine_.Schedule(&none);
  }
  void Finish(int tag) { log_.tracked.at(tag).instr->MarkDone(); }
  S State(int tag) { return log_.StateOf(tag); }
  std::string Snapshot() { return log_.Snapshot(); }
  FakeStream* Policy(VmStream* s) { return static_cast<FakeStream*>(s->policy()); }

  // Declared first, destroyed last: the engine is driven as the scheduler.
  base::ScopedThreadRole role_{base::ThreadRole::kScheduler};
  Log log_;
  VmCounters counters_;
  Engine engine_{&counters_, /*inline_max_bytes=*/0};
  base::Notifier on_done_;
  CompletionSignal completions_{&on_done_};  // the tests poll; no one waits on it
  std::vector<std::unique_ptr<BlobObject>> blobs_;
  std::vector<std::unique_ptr<VmStream>> streams_;
  std::vector<std::unique_ptr<StreamWorker>> workers_;  // destroyed (joined) first
};

// building -> pending -> ready -> running -> (done) -> free, one step at a time.
TEST_F(EngineStates, OneInstructionFromBuildingToFree) {
  VmStream* s = AddStream();
  BlobObject* x = Blob();
  Instruction* a = Build(1, s, {{x, true}});
  EXPECT_EQ(State(1), S::kBuilding);
  InstructionList list;
  list.PushBack(a);
  Accept(&list);
  EXPECT_EQ(State(1), S::kPending);
  EXPECT_TRUE(engine_.Empty());  // pending is not yet the engine's

  EXPECT_TRUE(engine_.Schedule(&list));
  ASSERT_EQ(log_.computed, (std::vector<int>{1}));
  EXPECT_EQ(log_.own_state_at_compute[1], S::kRunning);
  EXPECT_FALSE(log_.own_done_at_compute[1]);
  EXPECT_EQ(State(1), S::kRunning);  // launched, not finished
  EXPECT_EQ(engine_.lively_count(), 1u);

  EXPECT_FALSE(Pass());  // not done: nothing moves
  EXPECT_EQ(State(1), S::kRunning);
  EXPECT_TRUE(log_.destroyed.empty());

  Finish(1);
  EXPECT_EQ(State(1), S::kRunning);  // done, but released only by a pass
  EXPECT_TRUE(Pass());
  EXPECT_EQ(State(1), S::kFree);
  EXPECT_EQ(a->id(), 0u);
  EXPECT_EQ(a->policy(), nullptr);
  EXPECT_EQ(log_.destroyed, (std::vector<int>{1}));
  EXPECT_TRUE(engine_.Empty());
  EXPECT_EQ(counters_.dispatched.load(), 1u);
  EXPECT_EQ(counters_.finished.load(), 1u);
}

// With nothing ready before it, an instruction taken in with no
// predecessor is dispatched at once (before the next one is taken in), and
// one that finishes in its Run with nothing before it on its stream is
// released right there, not by a later pass.
TEST_F(EngineStates, IndependentInstructionsDispatchAsTakenInAndReleaseWhenRunFinishesThem) {
  VmStream* s = AddStream(/*auto_done=*/true);
  Submit({Build(1, s, {{Blob(), true}}), Build(2, s, {{Blob(), true}})});
  EXPECT_EQ(log_.computed, (std::vector<int>{1, 2}));
  EXPECT_EQ(log_.snapshots[1], "1:running 2:pending");
  EXPECT_EQ(log_.snapshots[2], "1:free 2:running");
  EXPECT_EQ(Snapshot(), "1:free 2:free");
  EXPECT_EQ(log_.destroyed, (std::vector<int>{1, 2}));
  EXPECT_TRUE(engine_.Empty());
  EXPECT_EQ(counters_.finished.load(), 2u);
  EXPECT_FALSE(Pass());
}

// Ready is visible from inside a compute: two instructions that a third's
// release unblocks are both ready before the first of them is dispatched,
// and they dispatch in order.
TEST_F(EngineStates, InstructionsUnblockedTogetherAreReadyTogetherAndDispatchInOrder) {
  VmStream* s0 = AddStream();
  VmStream* s1 = AddStream(/*auto_done=*/true);
  BlobObject* x = Blob();
  Submit({Build(1, s0, {{x, true}}), Build(2, s1, {{x, false}, {Blob(), true}}),
          Build(3, s1, {{x, false}, {Blob(), true}})});
  EXPECT_EQ(Snapshot(), "1:running 2:waiting 3:waiting");
  Finish(1);
  EXPECT_TRUE(Pass());
  ASSERT_EQ(log_.computed, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(log_.snapshots[2], "1:free 2:running 3:ready");
  EXPECT_EQ(log_.snapshots[3], "1:free 2:free 3:running");
  EXPECT_TRUE(engine_.Empty());
}

// An edge between two streams that do not order each other holds the
// successor in waiting until its predecessor is *released*: done is not
// enough while something before it on its stream is still running.
TEST_F(EngineStates, CrossStreamEdgeWaitsForTheRelease) {
  VmStream* s0 = AddStream();
  VmStream* s1 = AddStream();
  BlobObject* x = Blob();
  BlobObject* y = Blob();
  Submit({Build(1, s0, {{x, true}}),     // unrelated, first on s0
          Build(2, s0, {{y, true}}),     // producer of y
          Build(3, s1, {{y, false}})});  // consumer of y on another stream
  EXPECT_EQ(log_.computed, (std::vector<int>{1, 2}));
  EXPECT_EQ(Snapshot(), "1:running 2:running 3:waiting");

  Finish(2);  // the producer is done, but 1 is still running ahead of it
  Pass();
  EXPECT_EQ(Snapshot(), "1:running 2:running 3:waiting");
  EXPECT_EQ(log_.computed, (std::vector<int>{1, 2}));

  Finish(1);
  EXPECT_TRUE(Pass());  // releases 1 and 2 in order, then dispatches 3
  EXPECT_EQ(log_.destroyed, (std::vector<int>{1, 2}));
  ASSERT_EQ(log_.computed, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(log_.snapshots[3], "1:free 2:free 3:running");
  EXPECT_TRUE(Policy(s1)->device_waits.empty());

  Finish(3);
  Pass();
  EXPECT_TRUE(engine_.Empty());
}

// A successor with two predecessors on two other streams waits for both.
TEST_F(EngineStates, WaitingUntilTheLastPredecessorIsReleased) {
  VmStream* s0 = AddStream();
  VmStream* s1 = AddStream();
  VmStream* s2 = AddStream();
  BlobObject* x = Blob();
  BlobObject* y = Blob();
  Submit({Build(1, s0, {{x, true}}), Build(2, s1, {{y, true}}),
          Build(3, s2, {{x, false}, {y, false}})});
  EXPECT_EQ(Snapshot(), "1:running 2:running 3:waiting");
  Finish(2);
  Pass();
  EXPECT_EQ(Snapshot(), "1:running 2:free 3:waiting");
  Finish(1);
  Pass();
  EXPECT_EQ(log_.snapshots[3], "1:free 2:free 3:running");
  Finish(3);
  Pass();
  EXPECT_TRUE(engine_.Empty());
}

// Within one in-order stream an edge is satisfied at the source's dispatch:
// the successor becomes ready right behind it in the same pass, long before
// the source is done. Release is still in stream order.
TEST_F(EngineStates, SameStreamEdgeIsSatisfiedAtDispatch) {
  VmStream* s0 = AddStream();
  VmStream* s = AddStream();
  BlobObject* x = Blob();
  BlobObject* y = Blob();
  // 1 waits for 0 (another stream), so 2 is linked to 1 before 1 dispatches.
  Submit(
      {Build(0, s0, {{y, true}}), Build(1, s, {{y, false}, {x, true}}), Build(2, s, {{x, false}})});
  EXPECT_EQ(Snapshot(), "0:running 1:waiting 2:waiting");
  Finish(0);
  EXPECT_TRUE(Pass());
  ASSERT_EQ(log_.computed, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(log_.snapshots[1],
            "0:free 1:running 2:ready");  // ready at 1's dispatch, before it runs
  EXPECT_EQ(log_.snapshots[2], "0:free 1:running 2:running");

  Finish(2);  // finished out of order: still released after 1
  EXPECT_FALSE(Pass());
  EXPECT_EQ(Snapshot(), "0:free 1:running 2:running");
  Finish(1);
  EXPECT_TRUE(Pass());
  EXPECT_EQ(Snapshot(), "0:free 1:free 2:free");
  EXPECT_EQ(log_.destroyed, (std::vector<int>{0, 1, 2}));
}

// A same-stream source that is already running adds no edge at all: the
// successor, taken in later, is ready at once. (An edge there would never be
// satisfied: the source's dispatch is over.)
TEST_F(EngineStates, SameStreamSourceAlreadyRunningAddsNoEdge) {
  VmStream* s = AddStream();
  BlobObject* x = Blob();
  Submit({Build(1, s, {{x, true}})});
  EXPECT_EQ(Snapshot(), "1:running");
  Submit({Build(2, s, {{x, false}}), Build(3, s, {{x, true}})});  // read, then write
  ASSERT_EQ(log_.computed, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(log_.snapshots[2], "1:running 2:running 3:pending");
  EXPECT_EQ(log_.snapshots[3], "1:running 2:running 3:running");
  Finish(1);
  Finish(2);
  Finish(3);
  Pass();
  EXPECT_TRUE(engine_.Empty());
  EXPECT_EQ(log_.destroyed, (std::vector<int>{1, 2, 3}));
}

// Between two streams whose device orders them, the edge is satisfied at the
// source's dispatch too, and the source travels in the successor's
// device_waits.
TEST_F(EngineStates, OnDeviceCrossStreamEdgeIsSatisfiedAtDispatch) {
  VmStream* s = AddStream();
  VmStream* s0 = AddStream(false, /*orders_on_device=*/true);
  VmStream* s1 = AddStream(false, /*orders_on_device=*/true);
  BlobObject* x = Blob();
  BlobObject* y = Blob();
  // 1 waits for 0 (a stream that orders nothing), so 2 is linked to 1 first.
  Submit({Build(0, s, {{y, true}}), Build(1, s0, {{y, false}, {x, true}}),
          Build(2, s1, {{x, false}})});
  EXPECT_EQ(Snapshot(), "0:running 1:waiting 2:waiting");
  Finish(0);
  EXPECT_TRUE(Pass());
  ASSERT_EQ(log_.computed, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(log_.snapshots[1], "0:free 1:running 2:ready");
  EXPECT_EQ(log_.snapshots[2], "0:free 1:running 2:running");
  EXPECT_EQ(Policy(s1)->device_waits[2], (std::vector<int>{1}));
  Finish(1);
  Finish(2);
  Pass();
  EXPECT_TRUE(engine_.Empty());
}

// A barrier waits, in kBarrier, until every instruction taken in before it is
// released, including one still waiting on another; work taken in after it
// is not held back, and it does not wait for that work.
TEST_F(EngineStates, BarrierRunsOnceEverythingBeforeItIsReleased) {
  VmStream* s0 = AddStream();
  VmStream* s1 = AddStream();
  BlobObject* y = Blob();
  Submit({Build(1, s0, {{y, true}}), Build(2, s1, {{y, false}}), BuildBarrier(3),
          Build(4, s0, {{Blob(), true}})});
  EXPECT_EQ(log_.computed, (std::vector<int>{1, 4}));
  EXPECT_EQ(Snapshot(), "1:running 2:waiting 3:barrier 4:running");

  Finish(1);
  Pass();
  EXPECT_EQ(Snapshot(), "1:free 2:running 3:barrier 4:running");

  Finish(2);
  Pass();  // 2 released, then the barrier runs in the same pass; 4 still runs
  ASSERT_EQ(log_.computed, (std::vector<int>{1, 4, 2, 3}));
  EXPECT_EQ(log_.snapshots[3], "1:free 2:free 3:barrier 4:running");
  EXPECT_EQ(log_.own_state_at_compute[3], S::kBarrier);
  EXPECT_EQ(State(3), S::kFree);
  EXPECT_EQ(counters_.barriers.load(), 1u);

  Finish(4);
  Pass();
  EXPECT_TRUE(engine_.Empty());
}

TEST_F(EngineStates, BarriersRunInOrderAndAnEmptyEngineRunsOneAtOnce) {
  VmStream* s = AddStream();
  Submit({BuildBarrier(1)});
  EXPECT_EQ(log_.computed, (std::vector<int>{}));  // taken in; runs at the next pass
  EXPECT_EQ(State(1), S::kBarrier);
  Pass();
  EXPECT_EQ(log_.computed, (std::vector<int>{1}));

  Submit({Build(2, s, {{Blob(), true}}), BuildBarrier(3), BuildBarrier(4)});
  Pass();
  EXPECT_EQ(Snapshot(), "1:free 2:running 3:barrier 4:barrier");
  Finish(2);
  Pass();
  EXPECT_EQ(log_.computed, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(log_.snapshots[4], "1:free 2:free 3:free 4:barrier");
  EXPECT_TRUE(engine_.Empty());
}

// On a real stream worker: each compute sees its own instruction running and
// not yet done, a chain on the worker keeps its order, and a successor on
// another stream runs only after the chain's end is released.
TEST_F(EngineStates, WorkerComputesSeeRunningAndReleaseAfterDone) {
  log_.snapshot_all = false;  // the scheduler (this thread) moves states meanwhile
  VmStream* w = AddWorkerStream();
  VmStream* s = AddStream(/*auto_done=*/true);
  BlobObject* x = Blob();
  std::vector<Instruction*> chain;
  constexpr int kChain = 20;
  for (int t = 1; t <= kChain; ++t) chain.push_back(Build(t, w, {{x, true}}));
  chain.push_back(Build(kChain + 1, s, {{x, false}}));
  Submit(chain);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!engine_.Empty() && std::chrono::steady_clock::now() < deadline) {
    if (!Pass()) std::this_thread::yield();
  }
  ASSERT_TRUE(engine_.Empty());
  std::lock_guard<std::mutex> lock(log_.mu);
  ASSERT_EQ(log_.computed.size(), static_cast<size_t>(kChain + 1));
  for (int t = 1; t <= kChain + 1; ++t) {
    EXPECT_EQ(log_.computed[t - 1], t);
    EXPECT_EQ(log_.own_state_at_compute[t], S::kRunning) << t;
    EXPECT_FALSE(log_.own_done_at_compute[t]) << t;
  }
  // The reader on the other stream was released last.
  EXPECT_EQ(log_.destroyed.back(), kChain + 1);
  for (int t = 1; t <= kChain + 1; ++t) EXPECT_EQ(State(t), S::kFree) << t;
}

// --- the checks themselves ---

TEST(DCheck, EvaluatesItsConditionExactlyWhenOn) {
  int evaluated = 0;
  EAGERVM_DCHECK(++evaluated > 0, "never fails");
  EXPECT_EQ(evaluated, EAGERVM_DCHECK_IS_ON ? 1 : 0);
#if !defined(NDEBUG)
  static_assert(EAGERVM_DCHECK_IS_ON, "debug builds check");
#endif
}

#if EAGERVM_DCHECK_IS_ON

class InstructionStateDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
  // A fresh instruction walked along legal moves to `path`'s last state.
  static Instruction* Walk(std::initializer_list<S> path) {
    static Log log;
    Instruction* i = InstructionPool::Acquire();
    i->Emplace<Probe>(&log, 7, std::vector<Access>{}, false);
    for (S s : path) i->set_state(s);
    return i;
  }
};

TEST_F(InstructionStateDeathTest, AnIllegalSetStateAbortsNamingTheMoveAndThePolicy) {
  EXPECT_DEATH(Walk({})->set_state(S::kRunning),
               "illegal instruction state transition building -> running \\(policy Probe, id");
}

// Each of these is a scheduling bug the table exists to catch.
TEST_F(InstructionStateDeathTest, EngineBugsAbort) {
  // Dispatching with an unsatisfied in-edge.
  EXPECT_DEATH(Walk({S::kPending, S::kWaiting})->set_state(S::kRunning), "waiting -> running");
  // Releasing an instruction that was never dispatched.
  EXPECT_DEATH(Walk({S::kPending, S::kReady})->set_state(S::kFree), "ready -> free");
  // Dispatching twice.
  EXPECT_DEATH(Walk({S::kPending, S::kReady, S::kRunning})->set_state(S::kReady),
               "running -> ready");
  // Linking a barrier, or giving an instruction a second intake.
  EXPECT_DEATH(Walk({S::kPending, S::kBarrier})->set_state(S::kReady), "barrier -> ready");
  EXPECT_DEATH(Walk({S::kPending, S::kReady})->set_state(S::kPending), "ready -> pending");
}

// The old shutdown discard path: marked pending, then recycled. Receive now
// recycles a refused list before marking it (tests/shutdown_test.cc submits
// after Shutdown() and would abort here otherwise).
TEST_F(InstructionStateDeathTest, RecyclingAPendingInstructionAborts) {
  EXPECT_DEATH(InstructionPool::Recycle(Walk({S::kPending})), "pending -> free \\(policy Probe");
}

TEST_F(InstructionStateDeathTest, RecyclingTwiceAborts) {
  EXPECT_DEATH(
      {
        Instruction* i = Walk({});
        InstructionPool::Recycle(i);
        InstructionPool::Recycle(i);
      },
      "free -> free \\(policy none");
}

TEST_F(InstructionStateDeathTest, SchedulingOffTheSchedulerThreadAborts) {
  EXPECT_DEATH(
      {
        VmCounters counters;
        Engine engine(&counters, 0);
        InstructionList none;
        engine.Schedule(&none);  // this thread's role is kUser
      },
      "must run on a scheduler thread, but runs on a user thread");
  EXPECT_DEATH(
      {
        base::ScopedThreadRole worker(base::ThreadRole::kWorker);
        VmCounters counters;
        Engine engine(&counters, 0);
        InstructionList none;
        engine.Schedule(&none);
      },
      "runs on a worker thread");
}

#else  // !EAGERVM_DCHECK_IS_ON

TEST(InstructionStateRelease, SetStateIsAPlainStore) {
  Instruction* i = InstructionPool::Acquire();
  i->set_state(S::kRunning);  // illegal from kBuilding; unchecked here
  EXPECT_EQ(i->state(), S::kRunning);
  InstructionPool::Recycle(i);
  EXPECT_EQ(i->state(), S::kFree);
}

#endif  // EAGERVM_DCHECK_IS_ON

}  // namespace
}  // namespace eagervm::vm
