// Back-pressure (VmOptions::max_in_flight): a producer far faster than the VM
// blocks at the high-water mark until the VM drains to half of it, so the
// number of instructions in flight — and the memory they hold — stays bounded.
//
// 10^6 ops take ~1.0 s in a release build on the idle 2-core dev machine
// with max_in_flight = 1024 (2.7 s loaded; ~15 s loaded with a mark of 64:
// a park/wake per 32 ops);
// sanitizer builds (5-15x slower) run 10^5.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

constexpr int64_t kMaxInFlight = 1024;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kOps = 100000;
#else
constexpr int kOps = 1000000;
#endif

class BackpressureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    VmOptions o;
    o.cpu_streams = 2;
    o.max_in_flight = kMaxInFlight;
    o.donate_max_bytes = 0;  // every op queued: back-pressure is the point
    ASSERT_TRUE(VirtualMachine::Configure(o).ok());
  }
};

// One producer: after each submission at most max_in_flight instructions are
// in flight (it checks before it appends, one instruction at a time).
// The operands (2 x 16 KiB) are above VmOptions::inline_max_bytes, so each
// op goes to the stream's worker and takes longer than its submission: the
// producer gets ahead whatever the machine's load (with 1-float ops the
// scheduler, running them inline, could keep up on a quiet machine).
TEST_F(BackpressureTest, MillionTinyOpsStayUnderTheHighWaterMark) {
  constexpr int64_t kElems = 4096;
  Tensor acc = Full({kElems}, 0.0f, DType::kFloat32);
  Tensor one = Full({kElems}, 1.0f, DType::kFloat32);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kOps; ++i) ASSERT_TRUE(ops::AddInplace(acc, one).ok());
  absl::StatusOr<std::vector<float>> v = acc.ToVector<float>();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)[0], static_cast<float>(kOps));
  EXPECT_EQ((*v)[kElems - 1], static_cast<float>(kOps));
  ASSERT_TRUE(Sync().ok());  // Item() waits for the value, not for every release
  const VmStats s = VirtualMachine::Get().GetStats();
  EXPECT_LE(s.peak_in_flight, kMaxInFlight) << s;
  EXPECT_GT(s.backpressure_waits, 0u) << "the producer never got ahead: the test shows nothing";
  EXPECT_EQ(s.in_flight, 0) << s;
  std::printf("%d ops in %.2f s (%.0f ns/op), %llu back-pressure waits\n", kOps, seconds,
              seconds * 1e9 / kOps, static_cast<unsigned long long>(s.backpressure_waits));
}

// Several producers, each with its own tensors and a released temporary per
// op: each can overshoot the mark by the one instruction it checked for, and
// releases (emitted when a handle drops) are never held back, so a producer
// blocked in back-pressure cannot hold back the memory the VM needs to drain.
TEST_F(BackpressureTest, SeveralProducersFinishAndStayBounded) {
  constexpr int kThreads = 3;
  const int per_thread = kOps / 50;
  std::vector<std::thread> producers;
  std::vector<float> results(kThreads, -1);
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&, t] {
      StreamScope scope(Stream(Device::Cpu(), t % 2));
      Tensor acc = Full({16}, 0.0f, DType::kFloat32);
      for (int i = 0; i < per_thread; ++i) {
        Tensor tmp = Full({16}, 1.0f, DType::kFloat32);  // dropped each iteration
        if (!ops::AddInplace(acc, tmp).ok()) return;
      }
      absl::StatusOr<float> v = acc.Slice(0, 1).Item<float>();
      results[t] = v.ok() ? *v : -2;
    });
  }
  for (std::thread& p : producers) p.join();
  for (float r : results) EXPECT_EQ(r, static_cast<float>(per_thread));
  ASSERT_TRUE(Sync().ok());
  const VmStats s = VirtualMachine::Get().GetStats();
  // Each producer may append one past the mark; each also drops a tensor per
  // op, and those releases bypass back-pressure (at most one per op in flight).
  EXPECT_LE(s.peak_in_flight, kMaxInFlight + 2 * kThreads) << s;
  for (const MemoryStats& m : s.memory) EXPECT_EQ(m.bytes_in_use, 0) << s;
}

}  // namespace
}  // namespace eagervm
