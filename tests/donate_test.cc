// Donation (src/vm/lifecycle/donate.h): on an idle VM a small op that never
// blocks runs on the calling thread before the call returns; with anything
// in flight, or above VmOptions::donate_max_bytes, it is queued and runs on
// a VM thread; a kernel's error is reported as on the queued path.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

// Where the last "test.WhereAmI" kernel ran.
std::atomic<std::thread::id> g_ran_on{};
// "test.Gate" blocks its kernel until g_open.
std::atomic<bool> g_open{false};
std::atomic<bool> g_gate_entered{false};

absl::StatusOr<std::vector<TensorMeta>> SameMeta(const std::vector<TensorMeta>& in, const Attrs&) {
  return std::vector<TensorMeta>{in.at(0)};
}

void RegisterOnce() {
  static const bool done = [] {
    OpOptions small;
    small.small_runs_inline = true;  // never blocks: donatable
    EXPECT_TRUE(RegisterOp("test.WhereAmI", SameMeta, small).ok());
    EXPECT_TRUE(RegisterKernel("test.WhereAmI", DeviceType::kCPU, [](KernelContext& ctx) {
                  g_ran_on.store(std::this_thread::get_id());
                  const int64_t n = ctx.input_meta(0).shape.numel();
                  for (int64_t i = 0; i < n; ++i) ctx.output<float>(0)[i] = ctx.input<float>(0)[i];
                  return absl::OkStatus();
                }).ok());
    EXPECT_TRUE(RegisterOp("test.FailSmall", SameMeta, small).ok());
    EXPECT_TRUE(RegisterKernel("test.FailSmall", DeviceType::kCPU, [](KernelContext&) {
                  return absl::DataLossError("test.FailSmall failed on purpose");
                }).ok());
    // May block (no small_runs_inline): never donated.
    EXPECT_TRUE(RegisterOp("test.Gate", SameMeta).ok());
    EXPECT_TRUE(RegisterKernel("test.Gate", DeviceType::kCPU, [](KernelContext& ctx) {
                  g_gate_entered.store(true);
                  while (!g_open.load()) std::this_thread::yield();
                  ctx.output<float>(0)[0] = ctx.input<float>(0)[0];
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)done;
}

// Runs `fn` on a new thread: its donation state (how the VM measured this
// thread's handoffs of large ops, VmOptions::handoff_min_gap_us) is fresh,
// whatever earlier tests did on the main thread. (Making a large tensor is a
// large op too: make them before.)
void OnFreshThread(const std::function<void()>& fn) { std::thread(fn).join(); }

Tensor WhereAmI(const Tensor& x) {
  absl::StatusOr<TensorList> y = ops::Call("test.WhereAmI", {x});
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? (*y)[0] : Tensor::Error(y.status());
}

TEST(Donate, SmallOpOnAnIdleVmRunsOnTheCaller) {
  RegisterOnce();
  Tensor x = Full({16}, 3.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  g_ran_on.store(std::thread::id());
  const uint64_t wakeups = VirtualMachine::Get().GetStats().scheduler_wakeups;
  Tensor y = WhereAmI(x);
  // Ran before the call returned, on this thread, with no thread woken.
  EXPECT_EQ(g_ran_on.load(), std::this_thread::get_id());
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
  EXPECT_EQ(VirtualMachine::Get().GetStats().scheduler_wakeups, wakeups);
  EXPECT_EQ(y.ToVector<float>().value(), std::vector<float>(16, 3.0f));
  // A chain of dependent built-ins, each donated: the VM stays idle.
  Tensor z = x;
  for (int i = 0; i < 100; ++i) z = z + 1.0f;
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
  EXPECT_EQ(z.Item<float>().ok(), false);  // 16 elements: Item refuses
  EXPECT_EQ(z.ToVector<float>().value(), std::vector<float>(16, 103.0f));
}

// FromVector's copy of host data into a CPU tensor never blocks: on an idle
// VM it runs on the caller too (an input made every step, an index tensor in
// a backward formula, would otherwise wake the VM and queue the ops after it).
TEST(Donate, FromVectorOnAnIdleVmRunsOnTheCaller) {
  ASSERT_TRUE(Sync().ok());
  const VmStats before = VirtualMachine::Get().GetStats();
  Tensor ids = FromVector<int64_t>({2, 0, 1}, {3});
  Tensor y = ids + int64_t{1};
  const VmStats after = VirtualMachine::Get().GetStats();
  EXPECT_EQ(after.donated, before.donated + 2);
  EXPECT_EQ(after.in_flight, 0);
  EXPECT_EQ(after.scheduler_wakeups, before.scheduler_wakeups);
  EXPECT_EQ(y.ToVector<int64_t>().value(), (std::vector<int64_t>{3, 1, 2}));
}

// A thread's first op above the limit is handed off (whether later ones
// are depends on what it does in between: handoff_test.cc).
TEST(Donate, AboveTheByteLimitItIsQueued) {
  RegisterOnce();
  const int64_t n = (VirtualMachine::Get().options().donate_max_bytes / 4) + 1;  // > limit
  Tensor x = Full({n}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  OnFreshThread([&] {
    g_ran_on.store(std::thread::id());
    Tensor y = WhereAmI(x);
    ASSERT_TRUE(y.Wait().ok());
    EXPECT_NE(g_ran_on.load(), std::this_thread::get_id());
    EXPECT_NE(g_ran_on.load(), std::thread::id());
  });
}

// A gather's cost is the rows it picks: IndexSelect of a few rows of a table
// above the byte limit still runs on the caller (OpDef::gathered_mask).
TEST(Donate, ASmallGatherFromABigTableRunsOnTheCaller) {
  const int64_t width = 256;
  const int64_t rows = VirtualMachine::Get().options().donate_max_bytes / (width * 4) + 8;
  std::vector<float> values(static_cast<size_t>(rows * width));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  Tensor table = FromVector(values, {rows, width});
  Tensor index = Full({4}, int64_t{rows - 1}, DType::kInt64);  // the last row
  ASSERT_TRUE(Sync().ok());
  const uint64_t donated = VirtualMachine::Get().GetStats().donated;
  Tensor picked = ops::IndexSelect(table, 0, index);
  EXPECT_EQ(VirtualMachine::Get().GetStats().donated, donated + 1);
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
  const std::vector<float> got = picked.ToVector<float>().value();
  ASSERT_EQ(got.size(), static_cast<size_t>(4 * width));
  EXPECT_EQ(got[0], static_cast<float>((rows - 1) * width));
  EXPECT_EQ(got[4 * width - 1], static_cast<float>(rows * width - 1));
  // The whole table still counts where the kernel reads all of it: a large
  // op, handed off (a fresh thread's first).
  ASSERT_TRUE(Sync().ok());
  OnFreshThread([&] {
    const uint64_t before = VirtualMachine::Get().GetStats().donated;
    Tensor sum = ops::Sum(table);
    ASSERT_TRUE(sum.Wait().ok());
    EXPECT_EQ(VirtualMachine::Get().GetStats().donated, before);
  });
}

TEST(Donate, WithWorkInFlightItIsQueuedBehindIt) {
  RegisterOnce();
  Tensor x = Full({1}, 5.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  g_open.store(false);
  g_gate_entered.store(false);
  absl::StatusOr<TensorList> gated = ops::Call("test.Gate", {x});  // may block: queued
  ASSERT_TRUE(gated.ok());
  while (!g_gate_entered.load()) std::this_thread::yield();
  g_ran_on.store(std::thread::id());
  // Reads the gate's output: must wait for it, so it cannot run here and now.
  Tensor y = WhereAmI((*gated)[0]);
  EXPECT_EQ(g_ran_on.load(), std::thread::id());  // not run yet
  g_open.store(true);
  EXPECT_EQ(y.ToVector<float>().value(), std::vector<float>{5.0f});
  // It ran once the gate opened: on a worker, or on this thread if the read
  // drove the scheduler's pass itself (a small kernel runs inline on a
  // thread blocked in a read, see DriveUntilFinal). Either is correct; what
  // must not happen is the run at submission, checked above.
  EXPECT_NE(g_ran_on.load(), std::thread::id());
}

TEST(Donate, AKernelErrorPoisonsTheOutputAsWhenQueued) {
  RegisterOnce();
  Tensor x = Full({4}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  absl::StatusOr<TensorList> y = ops::Call("test.FailSmall", {x});
  ASSERT_TRUE(y.ok()) << "a runtime error is not a rejection: " << y.status();
  Tensor z = (*y)[0] + 1.0f;  // donated too, on a poisoned input
  absl::Status s = z.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(std::string(s.message()).find("test.FailSmall failed on purpose"), std::string::npos)
      << s;
  (void)Sync();  // reports (and clears) the error
  EXPECT_TRUE(Sync().ok());
}

// After a queue of work (a gated op, then small ops queued behind it) and a
// Sync(), the VM is idle: the next small op runs on the caller, and so does
// every one after it. Before returning, Sync() clears this thread's busy
// state (it skipped the idle test for a few ops after finding the VM busy)
// and releases what it waited for (VmImpl::SettleAfterWait). The queue stays
// under the run-ahead bound, so only that is tested here.
TEST(Donate, AfterSyncOfAQueueTheNextSmallOpsAreDonated) {
  RegisterOnce();
  Tensor x = Full({16}, 3.0f, DType::kFloat32);
  Tensor one = Full({1}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  for (int round = 0; round < 10; ++round) {
    g_open.store(false);
    g_gate_entered.store(false);
    absl::StatusOr<TensorList> gated = ops::Call("test.Gate", {one});  // may block: queued
    ASSERT_TRUE(gated.ok());
    Tensor z = (*gated)[0];
    for (int i = 0; i < 12; ++i) z = z + 1.0f;  // queued behind it (the VM is busy)
    g_open.store(true);
    ASSERT_TRUE(Sync().ok());
    EXPECT_EQ(z.ToVector<float>().value(), std::vector<float>{13.0f});
    const VmStats before = VirtualMachine::Get().GetStats();
    g_ran_on.store(std::thread::id());
    Tensor w = WhereAmI(x);
    EXPECT_EQ(g_ran_on.load(), std::this_thread::get_id()) << "round " << round;
    Tensor v = x;
    for (int i = 0; i < 20; ++i) v = v + 1.0f;
    const VmStats after = VirtualMachine::Get().GetStats();
    // WhereAmI, 20 adds and the releases of 19 temporaries (the last v is
    // alive), all on this thread.
    EXPECT_EQ(after.donated - before.donated, 40u) << "round " << round << ": " << after;
    EXPECT_EQ(after.in_flight, 0) << "round " << round;
  }
}

// Run-ahead is bounded by cost: a thread that queued more than
// VmOptions::run_ahead_max_bytes of ops behind busy work (here a gated op,
// then small ops that find the VM busy) waits for the VM to catch up (here
// it gives up after 2 ms each time: the gate opens only after the loop).
TEST(Donate, RunAheadIsBoundedByCost) {
  RegisterOnce();
  ASSERT_GT(VirtualMachine::Get().options().run_ahead_max_bytes, 0);
  Tensor one = Full({1}, 1.0f, DType::kFloat32);
  Tensor x = Full({16}, 0.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  g_open.store(false);
  const VmStats before = VirtualMachine::Get().GetStats();
  absl::StatusOr<TensorList> gated = ops::Call("test.Gate", {one});  // may block: queued
  ASSERT_TRUE(gated.ok());
  Tensor z = x;
  for (int i = 0; i < 200; ++i) z = z + 1.0f;  // 200 x (4 KiB + operands) > 256 KiB
  const VmStats after = VirtualMachine::Get().GetStats();
  g_open.store(true);
  EXPECT_GE(after.run_ahead_waits - before.run_ahead_waits, 1u) << after;
  EXPECT_EQ(z.ToVector<float>().value(), std::vector<float>(16, 200.0f));
  EXPECT_EQ((*gated)[0].ToVector<float>().value(), std::vector<float>{1.0f});
}

// A graph's run of several segments (one instruction each) whose nodes never
// block runs on the caller as a whole on an idle VM, like one small op: no
// instruction is left in flight when Run returns.
TEST(Donate, AGraphRunOfSeveralSegmentsRunsOnTheCaller) {
  const int64_t n = 16 << 10;  // 64 KiB per tensor: more than a cheap tail (inline_max_bytes)
  GraphOptions unfused;
  unfused.fuse = false;  // three nodes, not one fused kernel
  absl::StatusOr<Graph> g = Graph::Capture(
      {TensorMeta{Shape{n}, DType::kFloat32, Device::Cpu()}},
      [](const std::vector<Tensor>& in) {
        Tensor y = in[0] * 2.0f;  // the input's last use: a segment ends here
        return std::vector<Tensor>{(y + 1.0f) * 3.0f};
      },
      unfused);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_GE(g->GetStats().segments, 2);
  Tensor x = Full({n}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(Sync().ok());  // idle, the last round's read released
    const VmStats before = VirtualMachine::Get().GetStats();
    absl::StatusOr<std::vector<Tensor>> out = g->Run({x});
    ASSERT_TRUE(out.ok()) << out.status();
    const VmStats after = VirtualMachine::Get().GetStats();
    EXPECT_EQ(after.in_flight, 0) << after;
    EXPECT_GE(after.donated - before.donated, static_cast<uint64_t>(g->GetStats().segments))
        << after;
    EXPECT_EQ((*out)[0].ToVector<float>().value(), std::vector<float>(n, 9.0f));
  }
}

// Two threads submitting small dependent ops at once: each finds the VM idle
// or busy (the other's op in flight, the engine lock taken) op by op, so
// donated and queued ops interleave on the same storages' dependences.
TEST(Donate, ConcurrentSubmittersMixDonatedAndQueuedOps) {
  constexpr int kOps = 3000;
  std::vector<Tensor> acc;
  for (int t = 0; t < 2; ++t) acc.push_back(Full({8}, 0.0f, DType::kFloat32));
  Tensor shared = Full({8}, 0.0f, DType::kFloat32);
  Tensor one = Full({8}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kOps; ++i) {
        EXPECT_TRUE(ops::AddInplace(acc[t], one).ok());
        Tensor tmp = acc[t] * 2.0f;  // a temporary: its release is donated or queued too
        EXPECT_TRUE(ops::AddInplace(shared, one).ok());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(acc[t].ToVector<float>().value(), std::vector<float>(8, float{kOps}));
  }
  EXPECT_EQ(shared.ToVector<float>().value(), std::vector<float>(8, float{2 * kOps}));
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
}

// Instruction records are reused, never lost: whether ops are donated
// (acquired and recycled on this thread), queued, or submitted by threads
// that then exit, the pool stops growing once it holds the most ever in
// flight. A record dropped on any path would make it grow with the op count.
TEST(Donate, InstructionRecordsAreReusedNotLost) {
  auto allocated = [] { return VirtualMachine::Get().GetStats().instructions_allocated; };
  auto run = [](int ops) {
    Tensor z = Full({8}, 0.0f, DType::kFloat32);
    for (int i = 0; i < ops; ++i) z = z + 1.0f;
    EXPECT_EQ(z.ToVector<float>().value(), std::vector<float>(8, float(ops)));
    std::thread t([ops] {  // a thread that submits, then exits
      Tensor y = Full({8}, 0.0f, DType::kFloat32);
      for (int i = 0; i < ops / 10; ++i) y = y * 1.0f + 1.0f;
      EXPECT_TRUE(y.Wait().ok());
    });
    t.join();
    EXPECT_TRUE(Sync().ok());
  };
  run(20000);  // warm: the pool grows to what this needs
  const uint64_t warm = allocated();
  ASSERT_GT(warm, 0u);
  for (int round = 0; round < 5; ++round) run(20000);
  // 120k more ops; a few batches of slack for timing (what is in flight when).
  EXPECT_LE(allocated(), warm + 8 * 64) << "warm " << warm;
}

}  // namespace
}  // namespace eagervm
