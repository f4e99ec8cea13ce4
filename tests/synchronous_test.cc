// VmOptions::synchronous: no VM threads; every submission is scheduled and
// computed on the submitting thread before it returns. Random programs must
// give the reference result, and work is visibly done at return.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "configured_vm.h"
#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm {
namespace {

const auto* const env = ::testing::AddGlobalTestEnvironment(
    new testing::ConfiguredVm([](VmOptions& o) { o.synchronous = true; }));

constexpr int kPrograms = testing::kSanitized ? 20 : 100;
std::atomic<int> count_sync_calls{0};

TEST(Synchronous, RandomProgramsMatchReference) {
  ASSERT_TRUE(VirtualMachine::Get().options().synchronous);
  for (int p = 0; p < kPrograms; ++p) ASSERT_EQ(testing::RunRandomProgram(3000 + p), "");
  EXPECT_TRUE(Sync().ok());
}

TEST(Synchronous, TwoUserThreads) {
  const std::vector<std::string> failures =
      testing::RunRandomProgramsOnThreads(2, kPrograms / 4, 7000);
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

TEST(Synchronous, WorkIsDoneWhenTheCallReturns) {
  ASSERT_TRUE(RegisterOp("CountSync",
                         [](const std::vector<TensorMeta>& in,
                            const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                           return std::vector<TensorMeta>{in[0]};
                         })
                  .ok());
  ASSERT_TRUE(RegisterKernel("CountSync", DeviceType::kCPU, [](KernelContext&) {
                count_sync_calls.fetch_add(1);
                return absl::OkStatus();
              }).ok());
  Tensor x = Full({1}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(ops::Call("CountSync", {x}).ok());
  EXPECT_EQ(count_sync_calls.load(), 1);  // before any Sync
  // Even the release of the dropped output has run already.
  EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0);
}

}  // namespace
}  // namespace eagervm
