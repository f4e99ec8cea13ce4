// VirtualMachine::Shutdown(): drains queued work, then refuses new work with
// FailedPrecondition; old handles stay safe to drop; a second call is a no-op.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

std::atomic<int> slow_done{0};

TEST(Shutdown, DrainsThenRefusesWork) {
  OpOptions mutates0;
  mutates0.mutated_inputs = {0};
  ASSERT_TRUE(RegisterOp(
                  "SlowTouch",
                  [](const std::vector<TensorMeta>&,
                     const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                    return std::vector<TensorMeta>{};
                  },
                  mutates0)
                  .ok());
  ASSERT_TRUE(RegisterKernel("SlowTouch", DeviceType::kCPU, [](KernelContext& ctx) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                ctx.mutable_input<float>(0)[0] += 1;
                slow_done.fetch_add(1);
                return absl::OkStatus();
              }).ok());

  Tensor kept = Full({2}, 1.0f, DType::kFloat32);
  Tensor view = kept.Slice(0, 1);
  std::vector<Tensor> many;
  constexpr int kSlowOps = 20;
  for (int i = 0; i < kSlowOps; ++i) {
    StreamScope scope(Stream(Device::Cpu(), i % 2));
    Tensor t = Full({1}, 0.0f, DType::kFloat32);
    ASSERT_TRUE(ops::Call("SlowTouch", {t}).ok());
    many.push_back(t);
  }
  ASSERT_TRUE(VirtualMachine::Get().Shutdown().ok());
  EXPECT_EQ(slow_done.load(), kSlowOps);  // everything queued before it ran
  EXPECT_TRUE(VirtualMachine::Get().IsShutDown());

  // New work is refused, with nothing silently restarted.
  Tensor a = Full({2}, 1.0f, DType::kFloat32);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ops::Add(kept, kept).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ops::AddInplace(kept, kept).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ops::FillInplace(kept, 3).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(kept.To(Device::Cpu()).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(FromVector<float>(std::vector<float>{1, 2}, {2}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ops::Call("SlowTouch", {kept}).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(kept.Item<float>().status().code(), absl::StatusCode::kInvalidArgument);  // 2 elements
  // Values computed before Shutdown stay readable: the storage holds its
  // final bytes and a read needs no VM (read_after_shutdown_test).
  EXPECT_EQ(view.Item<float>().value_or(-1), 1.0f);
  EXPECT_EQ(kept.ToVector<float>().value_or(std::vector<float>{}), (std::vector<float>{1, 1}));
  EXPECT_EQ(Sync().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(slow_done.load(), kSlowOps);

  // Dropping old handles (here and on another thread) is fine.
  std::thread dropper([moved = std::move(many)]() mutable { moved.clear(); });
  dropper.join();
  view = Tensor();
  kept = Tensor();

  EXPECT_TRUE(VirtualMachine::Get().Shutdown().ok());
  EXPECT_EQ(VirtualMachine::Configure(VmOptions()).code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace eagervm
