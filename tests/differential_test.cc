// Differential tests: random programs on the VM (async, two streams, views,
// handles dropped at random, blocking reads mid-program) must give bitwise the
// values of a sequential host reference (tests/random_program.h).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm {
namespace {

using testing::kSanitized;
using testing::ProgramOptions;
using testing::RunRandomProgram;

// Release: >= 300 programs x 100 ops. Sanitizers are 5-15x slower.
constexpr int kPrograms = kSanitized ? 60 : 300;

TEST(Differential, SingleThread) {
  for (int p = 0; p < kPrograms; ++p) {
    const std::string failure = RunRandomProgram(1000 + p);
    ASSERT_EQ(failure, "");
  }
  ASSERT_TRUE(Sync().ok());
  const VmStats stats = VirtualMachine::Get().GetStats();
  EXPECT_GE(stats.received, static_cast<uint64_t>(kPrograms) * 100);
  EXPECT_EQ(stats.failed, 0u);
}

// Reads are rare in real programs: long asynchronous runs stress the
// dependence edges across streams more than blocking reads do.
TEST(Differential, LongProgramsNoMidReads) {
  ProgramOptions opts;
  opts.num_ops = 1000;
  opts.read_per_mille = 0;
  for (int p = 0; p < kPrograms / 20; ++p) {
    const std::string failure = RunRandomProgram(50000 + p, opts);
    ASSERT_EQ(failure, "");
  }
}

TEST(Differential, FourUserThreads) {
  constexpr int kThreads = 4;
  const std::vector<std::string> failures =
      testing::RunRandomProgramsOnThreads(kThreads, kPrograms / kThreads, 100000);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  EXPECT_TRUE(Sync().ok());
}

// Everything submitted has been released once Sync returns and the handles
// are gone: no instruction is stuck in a list.
TEST(Differential, DrainsCompletely) {
  ASSERT_EQ(RunRandomProgram(7), "");
  ASSERT_TRUE(Sync().ok());
  const VmStats stats = VirtualMachine::Get().GetStats();
  EXPECT_EQ(stats.in_flight, 0) << stats;
}

}  // namespace
}  // namespace eagervm
