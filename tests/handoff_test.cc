// Large ops, measured (VmOptions::handoff_min_gap_us): an op above
// donate_max_bytes on an idle VM is handed to a worker while the calling
// thread has work of its own to overlap with it, and runs on the caller when
// the thread goes straight on to its next op or waits for the result.
//
// The VM is configured with a gap of 100 ms, so that "straight on" (a few
// microseconds) and "work of its own" (200 ms of the thread's CPU time)
// are far apart on any machine, sanitizers included. Each test runs on a
// thread of its own: the measurement is per thread.
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "eagervm/custom_op.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

constexpr int64_t kGapUs = 100'000;

int64_t ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

// The thread's own work: 200 ms of its CPU time (> kGapUs), however loaded
// the machine. The VM measures the thread's CPU time, not the wall clock: a
// sleep is not work overlapped.
void HostWork() {
  const int64_t start = ThreadCpuMs();
  volatile uint64_t sink = 0;
  while (ThreadCpuMs() - start < 200) {
    for (int i = 0; i < 1000; ++i) sink = sink + static_cast<uint64_t>(i);
  }
}

// "test.GatedDouble": y = 2 * x (float32), a large op as the built-ins are
// (OpOptions::small_runs_inline), whose kernel first waits until the test
// opens the gate (10 s at most, so a wrong path fails instead of hanging).
// The tests that need the op handed off to be still running when they queue
// the next ones start with it: however the machine schedules the threads
// (a loaded CI runner may preempt the test thread for longer than a plain
// op takes), the next calls find the VM busy.
std::atomic<bool> g_gate_open{false};

void RegisterGatedDouble() {
  OpOptions options;
  options.small_runs_inline = true;
  ASSERT_TRUE(RegisterOp(
                  "test.GatedDouble",
                  [](const std::vector<TensorMeta>& in,
                     const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                    return std::vector<TensorMeta>{in.at(0)};
                  },
                  options)
                  .ok());
  ASSERT_TRUE(RegisterKernel("test.GatedDouble", DeviceType::kCPU, [](KernelContext& ctx) {
                const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                while (!g_gate_open.load(std::memory_order_acquire) &&
                       std::chrono::steady_clock::now() < deadline) {
                  std::this_thread::sleep_for(std::chrono::microseconds(100));
                }
                const float* x = ctx.input<float>(0);
                float* y = ctx.output<float>(0);
                for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) y[i] = 2 * x[i];
                return absl::OkStatus();
              }).ok());
}

// The gated op on x, with the gate closed.
Tensor GatedDouble(const Tensor& x) {
  g_gate_open.store(false, std::memory_order_release);
  absl::StatusOr<TensorList> y = ops::Call("test.GatedDouble", {x}, {});
  return y.ok() ? (*y)[0] : Tensor::Error(y.status());
}
void OpenGate() { g_gate_open.store(true, std::memory_order_release); }

class Handoff : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    VmOptions o = VmOptions::FromEnv();
    o.handoff_min_gap_us = kGapUs;
    ASSERT_TRUE(VirtualMachine::Configure(o).ok());
    RegisterGatedDouble();
  }
  // x: a tensor whose `x * s` has operands above donate_max_bytes. Made on
  // the test's main thread (making it is a large op too), then `fn` runs on a
  // fresh thread, with nothing measured yet.
  static void OnFreshThread(const std::function<void(const Tensor& x)>& fn) {
    const int64_t n = VirtualMachine::Get().options().donate_max_bytes / 4 + 1;
    const Tensor x = Full({n}, 1.0f, DType::kFloat32);
    ASSERT_TRUE(Sync().ok());
    std::thread([&] { fn(x); }).join();
  }
  static uint64_t Donated() { return VirtualMachine::Get().GetStats().donated; }
};

TEST_F(Handoff, TheFirstLargeOpIsHandedOff) {
  OnFreshThread([](const Tensor& x) {
    const uint64_t before = Donated();
    Tensor y = x * 2.0f;
    EXPECT_EQ(Donated(), before);  // queued
    EXPECT_EQ(y.ToVector<float>().value()[0], 2.0f);
  });
}

// Straight on to the next op after a handoff: nothing overlapped, so the next
// large op on an idle VM runs on the caller.
TEST_F(Handoff, BackToBackLargeOpsRunOnTheCallerAfterOneHandoff) {
  OnFreshThread([](const Tensor& x) {
    Tensor y = x * 2.0f;                            // handed off
    Tensor one = Full({1}, 1.0f, DType::kFloat32);  // at once: the handoff did not pay
    ASSERT_TRUE(Sync().ok());
    const uint64_t before = Donated();
    Tensor w = y * 3.0f;  // idle VM: runs here
    EXPECT_EQ(Donated(), before + 1);
    EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
    EXPECT_EQ(w.ToVector<float>().value()[0], 6.0f);
    EXPECT_EQ(one.ToVector<float>().value()[0], 1.0f);
  });
}

// Work of its own between a handoff and the next op: the overlap paid, and
// the next large op is handed off too.
TEST_F(Handoff, WithHostWorkBetweenThemLargeOpsStayHandedOff) {
  OnFreshThread([](const Tensor& x) {
    std::vector<Tensor> ys = {x * 2.0f};  // handed off (kept: no release is counted)
    for (int i = 0; i < 3; ++i) {
      HostWork();
      const VmStats before = VirtualMachine::Get().GetStats();
      ys.push_back(ys.back() * 2.0f);
      const VmStats after = VirtualMachine::Get().GetStats();
      EXPECT_EQ(after.donated, before.donated) << "op " << i;  // handed off again
      // and the thread went on at once: one large op is not a queue to drain
      // (VmOptions::run_ahead_max_bytes)
      EXPECT_EQ(after.run_ahead_waits, before.run_ahead_waits) << "op " << i;
    }
    EXPECT_EQ(ys.back().ToVector<float>().value()[0], 16.0f);
  });
}

// Two streams of large ops: an op on another stream right after a handoff
// runs beside the op handed off (they share no write), so that handoff paid
// and both streams' ops stay handed off, round after round. (The op handed
// off is the gated one: it still runs when the second comes.)
TEST_F(Handoff, AnOpOnAnotherStreamRightAfterAHandoffCountsAsOverlap) {
  OnFreshThread([](const Tensor& x) {
    std::vector<Tensor> kept;  // a release, donated on an idle VM, would blur it
    for (int round = 0; round < 4; ++round) {
      const uint64_t before = Donated();
      kept.push_back(GatedDouble(x));  // stream 0: handed off
      {
        StreamScope other(Stream(Device::Cpu(), 1));
        kept.push_back(x * 3.0f);  // at once, on stream 1: queued beside it
      }
      EXPECT_EQ(Donated(), before) << "round " << round;
      OpenGate();
      ASSERT_TRUE(Sync().ok());
    }
    EXPECT_EQ(kept[0].ToVector<float>().value()[0], 2.0f);
    EXPECT_EQ(kept.back().ToVector<float>().value()[0], 3.0f);
  });
}

// One stream's chain queued, then another stream's: the first chain's
// handoff was followed at once by its next op (no overlap by itself), but
// the other stream's ops, queued while it runs, run beside it: the
// back-off ends and the next round is handed off too.
// (The chain starts with the gated op: it still runs when the rest come.)
TEST_F(Handoff, AnotherStreamsOpsQueuedBesideAHandoffEndTheBackOff) {
  OnFreshThread([](const Tensor& x) {
    std::vector<Tensor> kept;
    for (int round = 0; round < 3; ++round) {
      const uint64_t before = Donated();
      kept.push_back(GatedDouble(x));  // stream 0
      for (int i = 0; i < 2; ++i) kept.push_back(x * 2.0f);
      {
        StreamScope other(Stream(Device::Cpu(), 1));
        for (int i = 0; i < 3; ++i) kept.push_back(x * 3.0f);
      }
      EXPECT_EQ(Donated(), before) << "round " << round;
      OpenGate();
      ASSERT_TRUE(Sync().ok());
    }
    EXPECT_EQ(kept[0].ToVector<float>().value()[0], 2.0f);
    EXPECT_EQ(kept.back().ToVector<float>().value()[0], 3.0f);
  });
}

// Reading the result right after a handoff is not overlap either (nor is a
// Sync: TriesAgainAfterABackOffThatDoubles).
TEST_F(Handoff, AWaitRightAfterAHandoffCountsAsNothingOverlapped) {
  OnFreshThread([](const Tensor& x) {
    Tensor y = x * 2.0f;  // handed off
    ASSERT_TRUE(y.Wait().ok());
    HostWork();  // after the wait: does not count
    const uint64_t before = Donated();
    Tensor z = y * 2.0f;
    EXPECT_EQ(Donated(), before + 1);
    EXPECT_EQ(z.ToVector<float>().value()[0], 4.0f);
  });
}

// After a handoff that did not pay, the thread runs 1, then 3, then 7 large
// ops itself before it tries again; each try that does not pay doubles the
// run. Results are those of the queued path throughout.
TEST_F(Handoff, TriesAgainAfterABackOffThatDoubles) {
  OnFreshThread([](const Tensor& x) {
    std::vector<bool> ran_here;
    // Kept: a release, counted as donated when the VM is idle, would blur it.
    std::vector<Tensor> acc = {x};
    for (int i = 0; i < 13; ++i) {
      const uint64_t before = Donated();
      acc.push_back(acc.back() + 1.0f);
      ran_here.push_back(Donated() > before);
      ASSERT_TRUE(Sync().ok());  // idle again; right after a handoff: it did not pay
    }
    // A handoff (0), one here, a handoff (2), three here, a handoff (6), seven here.
    const std::vector<bool> want = {false, true, false, true, true, true, false,
                                    true,  true, true,  true, true, true};
    EXPECT_EQ(ran_here, want);
    EXPECT_EQ(acc.back().ToVector<float>().value()[0], 14.0f);
  });
}

}  // namespace
}  // namespace eagervm
