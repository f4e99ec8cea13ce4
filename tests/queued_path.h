// For tests that watch the queued path (which thread runs an op, what the
// scheduler counts, what a trace shows): turns donation off before the
// first test, or ops on an idle VM would run on the calling thread
// (src/vm/lifecycle/donate.h). Include in one test file per binary.
#ifndef EAGERVM_TESTS_QUEUED_PATH_H_
#define EAGERVM_TESTS_QUEUED_PATH_H_

#include <gtest/gtest.h>

#include "eagervm/eagervm.h"

namespace eagervm::testing {

class QueuedPathEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    VmOptions o = VmOptions::FromEnv();
    o.donate_max_bytes = 0;
    ASSERT_TRUE(VirtualMachine::Configure(o).ok());
  }
};

inline ::testing::Environment* const kQueuedPath =
    ::testing::AddGlobalTestEnvironment(new QueuedPathEnvironment);

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_QUEUED_PATH_H_
