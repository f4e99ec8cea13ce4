// No spinning and a tiny in-flight limit (VmOptions::spin_us = 0,
// max_in_flight = 8): every VM thread parks between ops and submitting
// threads block for back-pressure all the time, which exercises every
// park/wake path (a lost wake-up hangs this test; ctest's timeout catches it).
// Random programs must still give the reference result.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "block_until.h"
#include "configured_vm.h"
#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm {
namespace {

constexpr int64_t kMaxInFlight = 8;

const auto* const env =
    ::testing::AddGlobalTestEnvironment(new testing::ConfiguredVm([](VmOptions& o) {
      o.max_in_flight = kMaxInFlight;
      o.spin_us = 0;
      o.donate_max_bytes = 0;  // every op queued: an idle VM would run them on the caller
    }));

constexpr int kPrograms = testing::kSanitized ? 12 : 60;

TEST(ParkWake, RandomProgramsMatchReference) {
  for (int p = 0; p < kPrograms; ++p) ASSERT_EQ(testing::RunRandomProgram(11000 + p), "");
  ASSERT_TRUE(Sync().ok());
  // (Whether these programs ever fill max_in_flight depends on how fast the
  // VM keeps up: the next test makes back-pressure certain.)
  EXPECT_GT(VirtualMachine::Get().GetStats().scheduler_wakeups, 0u);
}

// A host callback holds the CPU stream while this thread queues many times
// max_in_flight ops behind it: the submitter must block for back-pressure
// (until another thread lets the callback go), then everything finishes.
TEST(ParkWake, BackPressureBlocksTheSubmitterWhileAStreamIsHeld) {
  const uint64_t waits0 = VirtualMachine::Get().GetStats().backpressure_waits;
  Tensor x = FromVector<float>({0}, {1});
  const Tensor one = FromVector<float>({1}, {1});
  std::atomic<bool> release{false}, timed_out{false};
  ASSERT_TRUE(testing::HoldStream(x, release, timed_out).ok());
  std::thread opener = testing::OpenWhenBackPressured(release, waits0);
  constexpr int kOps = 16 * kMaxInFlight;
  for (int i = 0; i < kOps; ++i) ASSERT_TRUE(ops::AddInplace(x, one).ok());
  opener.join();
  absl::StatusOr<float> v = x.Item<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, static_cast<float>(kOps));
  EXPECT_FALSE(timed_out.load());
  EXPECT_GT(VirtualMachine::Get().GetStats().backpressure_waits, waits0);
}

TEST(ParkWake, FourUserThreads) {
  constexpr int kThreads = 4;
  const std::vector<std::string> failures =
      testing::RunRandomProgramsOnThreads(kThreads, kPrograms / kThreads, 12000);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
}

// A dependent chain hopping between streams, far beyond the limit.
TEST(ParkWake, LongChainAcrossStreams) {
  Tensor acc = Full({4}, 0, DType::kInt64);
  Tensor one = Full({4}, 1, DType::kInt64);
  for (int i = 0; i < 5000; ++i) {
    StreamScope scope(Stream(Device::Cpu(), i % 2));
    ASSERT_TRUE(ops::AddInplace(acc, one).ok());
  }
  absl::StatusOr<std::vector<int64_t>> v = acc.ToVector<int64_t>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<int64_t>(4, 5000));
}

}  // namespace
}  // namespace eagervm
