// VmOptions::inline_max_bytes = 0 and donate_max_bytes = 0: every CPU
// instruction is handed to its stream's worker thread, as before inline
// dispatch and donation existed. The default
// configuration runs most small test programs on the scheduler, so this keeps
// the worker path under the differential test.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "configured_vm.h"
#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm {
namespace {

const auto* const env =
    ::testing::AddGlobalTestEnvironment(new testing::ConfiguredVm([](VmOptions& o) {
      o.inline_max_bytes = 0;
      o.donate_max_bytes = 0;  // nor on the calling thread (donation)
    }));

constexpr int kPrograms = testing::kSanitized ? 40 : 300;

TEST(WorkerHandoff, RandomProgramsMatchReference) {
  for (int p = 0; p < kPrograms; ++p) ASSERT_EQ(testing::RunRandomProgram(21000 + p), "");
  ASSERT_TRUE(Sync().ok());
  const VmStats s = VirtualMachine::Get().GetStats();
  EXPECT_EQ(s.inlined, 0u) << s;
  EXPECT_GT(s.batched, 0u) << "runs of same-stream instructions go to the worker in batches; " << s;
}

TEST(WorkerHandoff, FourUserThreads) {
  const std::vector<std::string> failures =
      testing::RunRandomProgramsOnThreads(4, kPrograms / 8, 23000);
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
