// VmOptions::compute_on_scheduler_thread: CPU kernels run on the scheduler
// thread (no stream workers). Random programs must give the reference result.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm {
namespace {

class SchedulerComputeEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    VmOptions opts;
    opts.compute_on_scheduler_thread = true;
    ASSERT_TRUE(VirtualMachine::Configure(opts).ok());
  }
};
const auto* const env = ::testing::AddGlobalTestEnvironment(new SchedulerComputeEnvironment);

constexpr int kPrograms = testing::kSanitized ? 20 : 100;

TEST(ComputeOnSchedulerThread, RandomProgramsMatchReference) {
  ASSERT_TRUE(VirtualMachine::Get().options().compute_on_scheduler_thread);
  for (int p = 0; p < kPrograms; ++p) ASSERT_EQ(testing::RunRandomProgram(5000 + p), "");
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(VirtualMachine::Get().GetStats().worker_wakeups, 0u);  // no workers exist
}

TEST(ComputeOnSchedulerThread, TwoUserThreads) {
  std::vector<std::string> failures(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &failures] {
      for (int p = 0; p < kPrograms / 4 && failures[t].empty(); ++p) {
        failures[t] = testing::RunRandomProgram(9000 + 100 * t + p);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
