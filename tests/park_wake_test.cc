// No spinning and a tiny in-flight limit (VmOptions::spin_us = 0,
// max_in_flight = 8): every VM thread parks between ops and submitting
// threads block for back-pressure all the time, which exercises every
// park/wake path (a lost wake-up hangs this test; ctest's timeout catches it).
// Random programs must still give the reference result.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

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
    }));

constexpr int kPrograms = testing::kSanitized ? 12 : 60;

TEST(ParkWake, RandomProgramsMatchReference) {
  for (int p = 0; p < kPrograms; ++p) ASSERT_EQ(testing::RunRandomProgram(11000 + p), "");
  ASSERT_TRUE(Sync().ok());
  const VmStats stats = VirtualMachine::Get().GetStats();
  EXPECT_GT(stats.backpressure_waits, 0u) << stats;
  EXPECT_GT(stats.scheduler_wakeups, 0u) << stats;
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
