// VmOptions::compute_on_scheduler_thread: CPU kernels run on the scheduler
// thread (no stream workers). Random programs must give the reference result.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "configured_vm.h"
#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm {
namespace {

const auto* const env = ::testing::AddGlobalTestEnvironment(
    new testing::ConfiguredVm([](VmOptions& o) { o.compute_on_scheduler_thread = true; }));

constexpr int kPrograms = testing::kSanitized ? 20 : 100;

TEST(ComputeOnSchedulerThread, RandomProgramsMatchReference) {
  ASSERT_TRUE(VirtualMachine::Get().options().compute_on_scheduler_thread);
  for (int p = 0; p < kPrograms; ++p) ASSERT_EQ(testing::RunRandomProgram(5000 + p), "");
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(VirtualMachine::Get().GetStats().worker_wakeups, 0u);  // no workers exist
}

TEST(ComputeOnSchedulerThread, TwoUserThreads) {
  const std::vector<std::string> failures =
      testing::RunRandomProgramsOnThreads(2, kPrograms / 4, 9000);
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
