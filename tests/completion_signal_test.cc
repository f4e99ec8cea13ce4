// Workers wake the scheduler only when a completion can unblock something
// (issue 15, item 5; vm/streams/completion_signal.h): a busy worker's batch of
// instructions no one waits for costs the parked scheduler one wake-up, not
// one per instruction; and a completion something does wait for is reported
// at once, even in the middle of a batch whose next kernel waits for that
// very successor (the case a lost notice would hang).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "block_until.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> gate_open{false};
std::atomic<bool> successor_ran{false};

absl::StatusOr<std::vector<TensorMeta>> NoOutputs(const std::vector<TensorMeta>&, const Attrs&) {
  return std::vector<TensorMeta>{};
}

// Spins (bounded) until `flag`: a kernel that holds its worker.
absl::Status SpinUntil(const std::atomic<bool>& flag, const char* what) {
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (!flag.load()) {
    if (Clock::now() > deadline) return absl::DeadlineExceededError(what);
    std::this_thread::yield();
  }
  return absl::OkStatus();
}

void RegisterOps() {
  static const bool once = [] {
    OpOptions mut;  // every op here writes its input: ordered like a chain
    mut.mutated_inputs = {0};
    EXPECT_TRUE(RegisterOp("wake.Gate", NoOutputs, mut).ok());
    EXPECT_TRUE(RegisterKernel("wake.Gate", DeviceType::kCPU, [](KernelContext&) {
                  return SpinUntil(gate_open, "the gate never opened");
                }).ok());
    // attrs["ms"] milliseconds of work (1: longer than the scheduler's spin window).
    EXPECT_TRUE(RegisterOp("wake.Busy", NoOutputs, mut).ok());
    EXPECT_TRUE(RegisterKernel("wake.Busy", DeviceType::kCPU, [](KernelContext& ctx) {
                  const auto end = Clock::now() + std::chrono::milliseconds(
                                                      std::get<int64_t>(ctx.attrs().at("ms")));
                  while (Clock::now() < end) {
                  }
                  return absl::OkStatus();
                }).ok());
    EXPECT_TRUE(RegisterOp("wake.AwaitSuccessor", NoOutputs, mut).ok());
    EXPECT_TRUE(RegisterKernel("wake.AwaitSuccessor", DeviceType::kCPU, [](KernelContext&) {
                  return SpinUntil(successor_ran, "the other stream's successor never ran");
                }).ok());
    EXPECT_TRUE(RegisterOp("wake.Successor", NoOutputs, mut).ok());
    EXPECT_TRUE(RegisterKernel("wake.Successor", DeviceType::kCPU, [](KernelContext&) {
                  successor_ran.store(true);
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)once;
}

class CompletionSignal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    VmOptions o;
    o.cpu_streams = 2;
    o.max_in_flight = 64;
    ASSERT_TRUE(VirtualMachine::Configure(o).ok());
  }
};

uint64_t SchedulerWakeups() { return VirtualMachine::Get().GetStats().scheduler_wakeups; }

Tensor Float() { return Full({1}, 0.0f, DType::kFloat32); }

// 50 one-millisecond kernels queued behind a gate run as one batch: with
// nothing waiting on them, the parked scheduler hears of them once, at the
// batch's end (it heard of every one before: ~50 wake-ups, each ~40 us of
// another core and a preempted worker on a 2-core machine).
TEST_F(CompletionSignal, ABatchNoOneWaitsForWakesTheSchedulerOnce) {
  RegisterOps();
  gate_open = false;
  Tensor t = Float();
  ASSERT_TRUE(Sync().ok());
  ASSERT_TRUE(ops::Call("wake.Gate", {t}).ok());
  constexpr int kOps = 50;
  for (int i = 0; i < kOps; ++i)
    ASSERT_TRUE(ops::Call("wake.Busy", {t}, {{"ms", int64_t{1}}}).ok());
  // Let the scheduler hand them over and park.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const uint64_t before = SchedulerWakeups();
  gate_open = true;
  // The batch takes ~50 ms; nothing here waits for it (no Sync yet).
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  const uint64_t during = SchedulerWakeups() - before;
  ASSERT_TRUE(Sync().ok());
  EXPECT_LE(during, 5u) << "the scheduler was woken per instruction";
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
}

// Stream 0's worker gets [20 ms of work, write x, wait for the successor] as
// one batch (queued behind a gate); the successor reads x on stream 1, so it
// waits for the write's release. The worker must report the write at once
// (the engine waits for it), or the scheduler, parked since the gate's batch,
// never releases it and the last kernel spins until it gives up.
TEST_F(CompletionSignal, ACompletionSomethingWaitsForIsReportedMidBatch) {
  RegisterOps();
  gate_open = false;
  successor_ran = false;
  Tensor x = Float();
  Tensor y = Float();
  Tensor z = Float();
  ASSERT_TRUE(Sync().ok());
  {
    StreamScope s0(Stream(Device::Cpu(), 0));
    ASSERT_TRUE(ops::Call("wake.Gate", {z}).ok());  // holds the worker
    ASSERT_TRUE(ops::Call("wake.Busy", {z}, {{"ms", int64_t{20}}}).ok());
    ASSERT_TRUE(ops::AddInplace(x, x).ok());  // the write
    ASSERT_TRUE(ops::Call("wake.AwaitSuccessor", {y}).ok());
  }
  {
    StreamScope s1(Stream(Device::Cpu(), 1));
    // Reads x (and writes a tensor of its own): waits for the write's release.
    Tensor sum = ops::Sum(x);
    ASSERT_TRUE(sum.ok());
    ASSERT_TRUE(ops::Call("wake.Successor", {sum}).ok());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // all linked and parked
  gate_open = true;
  // Watched without a Sync: its barrier would make the scheduler poll.
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  while (!successor_ran.load() && Clock::now() < deadline) std::this_thread::yield();
  EXPECT_TRUE(successor_ran.load()) << "the write's completion was not reported mid-batch";
  const absl::Status s = Sync();
  EXPECT_TRUE(s.ok()) << s;
}

// A back-pressured submitter is a waiter too: 3000 worker-bound ops through a
// mark of 64 finish (each wait ends when the scheduler hears of releases).
// The stream is held by a blocking callback until the submitter is seen
// waiting, so back-pressure happens on any machine, however loaded.
TEST_F(CompletionSignal, BackPressureStillDrains) {
  RegisterOps();
  Tensor t = Float();
  Tensor one = Full({4096}, 1.0f, DType::kFloat32);  // 16 KiB: past inline_max_bytes
  Tensor acc = Full({4096}, 0.0f, DType::kFloat32);
  const uint64_t waits0 = VirtualMachine::Get().GetStats().backpressure_waits;
  std::atomic<bool> release{false}, timed_out{false};
  ASSERT_TRUE(testing::HoldStream(acc, release, timed_out).ok());
  std::thread opener = testing::OpenWhenBackPressured(release, waits0);
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(ops::AddInplace(acc, one).ok());
  opener.join();
  EXPECT_FALSE(timed_out.load());
  absl::StatusOr<std::vector<float>> v = acc.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)[0], 3000.0f);
  EXPECT_EQ((*v)[4095], 3000.0f);
  EXPECT_GT(VirtualMachine::Get().GetStats().backpressure_waits, waits0);
}

}  // namespace
}  // namespace eagervm
