// VmOptions::inline_max_bytes (default on): small instructions of ops that
// allow it run on the scheduler thread when their stream is idle; everything
// else goes to the stream's worker. Checks where kernels run, and that an
// inline instruction never overtakes earlier work of its stream.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "queued_path.h"  // these tests watch which thread runs what

namespace eagervm {
namespace {

// Kernels record the thread they ran on here (one op call at a time).
std::atomic<std::thread::id> g_last_thread;

// "InlineProbe" allows inline runs, "WorkerProbe" does not; both write the
// thread they ran on and add 1 to their (mutated) input. "SlowSet" sleeps,
// then sets its input to 5: it runs on the worker for 50 ms.
void RegisterProbes() {
  static const bool once = [] {
    auto no_outputs = [](const std::vector<TensorMeta>&, const Attrs&) {
      return absl::StatusOr<std::vector<TensorMeta>>(std::vector<TensorMeta>{});
    };
    auto add_one = [](KernelContext& ctx) {
      g_last_thread.store(std::this_thread::get_id());
      float* x = ctx.mutable_input<float>(0);
      const int64_t n = ctx.input_meta(0).shape.numel();
      for (int64_t i = 0; i < n; ++i) x[i] += 1;
      return absl::OkStatus();
    };
    OpOptions inline_ok;
    inline_ok.mutated_inputs = {0};
    inline_ok.small_runs_inline = true;
    OpOptions worker_only;
    worker_only.mutated_inputs = {0};
    EXPECT_TRUE(RegisterOp("InlineProbe", no_outputs, inline_ok).ok());
    EXPECT_TRUE(RegisterKernel("InlineProbe", DeviceType::kCPU, add_one).ok());
    EXPECT_TRUE(RegisterOp("WorkerProbe", no_outputs, worker_only).ok());
    EXPECT_TRUE(RegisterKernel("WorkerProbe", DeviceType::kCPU, add_one).ok());
    EXPECT_TRUE(RegisterOp("SlowSet", no_outputs, worker_only).ok());
    EXPECT_TRUE(RegisterKernel("SlowSet", DeviceType::kCPU, [](KernelContext& ctx) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(50));
                  float* x = ctx.mutable_input<float>(0);
                  const int64_t n = ctx.input_meta(0).shape.numel();
                  for (int64_t i = 0; i < n; ++i) x[i] = 5;
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)once;
}

std::thread::id RunOn(const char* op, const Tensor& t) {
  EXPECT_TRUE(ops::Call(op, {t}).ok());
  EXPECT_TRUE(Sync().ok());
  return g_last_thread.load();
}

TEST(InlineDispatch, SmallCallsOfInlineOpsRunOnTheSchedulerOthersOnTheWorker) {
  RegisterProbes();
  ASSERT_GT(VirtualMachine::Get().options().inline_max_bytes, 0);
  const int64_t big = VirtualMachine::Get().options().inline_max_bytes / 4 + 1;  // floats
  Tensor small = Full({4}, 0.0f, DType::kFloat32);
  Tensor large = Full({big}, 0.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());

  const uint64_t inlined_before = VirtualMachine::Get().GetStats().inlined;
  const std::thread::id inline_small = RunOn("InlineProbe", small);
  const uint64_t inlined_after = VirtualMachine::Get().GetStats().inlined;
  const std::thread::id worker_small = RunOn("WorkerProbe", small);
  const std::thread::id inline_large = RunOn("InlineProbe", large);

  EXPECT_NE(inline_small, std::this_thread::get_id());
  EXPECT_NE(inline_small, worker_small) << "a small inline-able call should run on the scheduler";
  EXPECT_EQ(inline_large, worker_small)
      << "a call over inline_max_bytes runs on the stream's worker";
  EXPECT_GE(inlined_after, inlined_before + 1);
  EXPECT_EQ(small.ToVector<float>().value(), std::vector<float>(4, 2.0f));
}

// The worker is busy with SlowSet when the small inline-able adds become
// ready (same stream, same-stream edges are satisfied at dispatch): running
// them on the scheduler then would overtake SlowSet and lose its write.
TEST(InlineDispatch, NeverOvertakesEarlierWorkOfItsStream) {
  RegisterProbes();
  Tensor t = Full({4}, 0.0f, DType::kFloat32);
  Tensor one = Full({4}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(ops::Call("SlowSet", {t}).ok());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(ops::AddInplace(t, one).ok());
    ASSERT_TRUE(ops::Call("InlineProbe", {t}).ok());
    EXPECT_EQ(t.ToVector<float>().value(), std::vector<float>(4, 16.0f)) << "round " << round;
  }
}

// A small read (Item) of a tensor whose writer is still on the worker waits
// for it, and then sees its value.
TEST(InlineDispatch, ItemAfterSlowWorkerWrite) {
  RegisterProbes();
  Tensor t = Full({1}, 0.0f, DType::kFloat32);
  ASSERT_TRUE(ops::Call("SlowSet", {t}).ok());
  EXPECT_EQ(t.Item<float>().value(), 5.0f);
}

}  // namespace
}  // namespace eagervm
