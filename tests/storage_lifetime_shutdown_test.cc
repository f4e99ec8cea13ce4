// Dropping handles while VirtualMachine::Shutdown() runs (its own process:
// shutdown is for good). Instructions that the VM refuses once it has stopped
// accepting still name storages that work in flight reads; they free them
// only after the scheduler has stopped (SubmissionQueue::RecycleRefused). Under
// ASan a storage freed too early is a heap-use-after-free.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

absl::StatusOr<std::vector<TensorMeta>> SameAsInput(const std::vector<TensorMeta>& in,
                                                    const Attrs&) {
  return std::vector<TensorMeta>{in.at(0)};
}

TEST(StorageLifetimeShutdown, DropsRacingShutdown) {
  ASSERT_TRUE(RegisterOp("SlowSum", SameAsInput).ok());
  ASSERT_TRUE(RegisterKernel("SlowSum", DeviceType::kCPU, [](KernelContext& ctx) {
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                const float* in = ctx.input<float>(0);
                float* out = ctx.output<float>(0);
                for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) out[i] = in[i] + 1;
                return absl::OkStatus();
              }).ok());
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 3; ++k) {
    threads.emplace_back([k, &refused] {
      StreamScope scope(Stream(Device::Cpu(), k % 2));  // VmOptions::cpu_streams is 2
      for (int i = 0; i < 100000; ++i) {
        Tensor x = Full({128}, 1.0f, DType::kFloat32);
        absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowSum", {x});
        if (!r.ok()) {
          EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
          refused.fetch_add(1);
          return;
        }
        Tensor y = (*r)[0];
        // Refused too once the VM has stopped accepting, which is before
        // IsShutDown() turns true.
        const absl::Status s = ops::AddInplace(y, x);
        if (!s.ok()) {
          EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
          refused.fetch_add(1);
          return;
        }
        // x and y drop here, their releases racing the shutdown.
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_TRUE(VirtualMachine::Get().Shutdown().ok());
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(refused.load(), 3);
}

}  // namespace
}  // namespace eagervm
