// Host reads (Wait, Item, ToVector, CopyToHost) of CPU tensors whose writes
// have all been released are answered on the calling thread with no
// instruction at all (VmImpl::ReadIfFinal), also while the VM is busy with
// other work: the value, the error and the counts must be what the queued
// read gives, a write still running must be waited for, and a read racing
// with other threads' writes must still see the program's order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::vector<TensorMeta>> SameMeta(const std::vector<TensorMeta>& in, const Attrs&) {
  return std::vector<TensorMeta>{in[0]};
}

absl::StatusOr<std::vector<TensorMeta>> NoOutputs(const std::vector<TensorMeta>&, const Attrs&) {
  return std::vector<TensorMeta>{};
}

std::atomic<bool> gate_open{false};

// IdleReadFail(x) -> y: fails.  SlowSetSeven(x): sleeps 30 ms, then sets
// every element of x to 7.  Gated(x): waits for gate_open, then adds 1.
void RegisterTestOps() {
  static const bool registered = [] {
    EXPECT_TRUE(RegisterOp("IdleReadFail", SameMeta).ok());
    EXPECT_TRUE(RegisterKernel("IdleReadFail", DeviceType::kCPU, [](KernelContext&) {
                  return absl::DataLossError("idle boom");
                }).ok());
    OpOptions in_place;
    in_place.mutated_inputs = {0};
    EXPECT_TRUE(RegisterOp("SlowSetSeven", NoOutputs, in_place).ok());
    EXPECT_TRUE(RegisterKernel("SlowSetSeven", DeviceType::kCPU, [](KernelContext& ctx) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(30));
                  float* x = ctx.mutable_input<float>(0);
                  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) x[i] = 7.0f;
                  return absl::OkStatus();
                }).ok());
    EXPECT_TRUE(RegisterOp("Gated", NoOutputs, in_place).ok());
    EXPECT_TRUE(RegisterKernel("Gated", DeviceType::kCPU, [](KernelContext& ctx) {
                  while (!gate_open.load())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                  float* x = ctx.mutable_input<float>(0);
                  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) x[i] += 1.0f;
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)registered;
}

TEST(IdleRead, ValueAfterSync) {
  Tensor x = Full({4}, 1.0f, DType::kFloat32);
  Tensor one = Full({4}, 1.0f, DType::kFloat32);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(ops::AddInplace(x, one).ok());
  ASSERT_TRUE(Sync().ok());
  absl::StatusOr<std::vector<float>> v = x.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<float>{11, 11, 11, 11}));
  EXPECT_TRUE(x.Wait().ok());
}

// The read starts at the view's offset in the shared storage.
TEST(IdleRead, SliceReadsItsOwnBytes) {
  Tensor x = FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {10});
  Tensor s = x.Slice(3, 6);
  ASSERT_TRUE(Sync().ok());
  absl::StatusOr<std::vector<float>> v = s.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<float>{3, 4, 5}));
  absl::StatusOr<float> last = x.Slice(9, 10).Reshape({}).Item<float>();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 9.0f);
}

// A failed write poisons its output: every later read reports the kernel's
// error, never OK with stale bytes, and reading does not re-queue it for Sync.
TEST(IdleRead, PoisonedTensorReportsTheKernelsError) {
  RegisterTestOps();
  Tensor x = Full({2}, 1.0f, DType::kFloat32);
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("IdleReadFail", {x});
  ASSERT_TRUE(r.ok()) << r.status();
  Tensor y = (*r)[0];
  absl::Status synced = Sync();
  EXPECT_EQ(synced.code(), absl::StatusCode::kDataLoss);
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<float> item = y.Reshape({2}).Slice(0, 1).Reshape({}).Item<float>();
    EXPECT_EQ(item.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(item.status().message(), HasSubstr("idle boom"));
    EXPECT_EQ(y.Wait().code(), absl::StatusCode::kDataLoss);
  }
  EXPECT_TRUE(Sync().ok()) << "the error was reported once already";
}

TEST(IdleRead, NeverWrittenStorageSaysSo) {
  Tensor e = Empty({3}, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  absl::Status s = e.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("never written"));
}

// A write still running is waited for: the read never returns the bytes
// from before it (a read answered early would give 1s).
TEST(IdleRead, WaitsForAWriteStillRunning) {
  RegisterTestOps();
  for (int round = 0; round < 3; ++round) {
    Tensor x = Full({4}, 1.0f, DType::kFloat32);
    ASSERT_TRUE(Sync().ok());
    ASSERT_TRUE(ops::Call("SlowSetSeven", {x}).ok());
    absl::StatusOr<std::vector<float>> v = x.ToVector<float>();
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, (std::vector<float>{7, 7, 7, 7}));
  }
}

// A storage whose writes are all released is read at once while another
// stream is still busy, and the busy stream's result is right afterwards.
TEST(IdleRead, ReadsAFinalTensorWhileAnotherStreamWorks) {
  RegisterTestOps();
  Tensor done = Full({2}, 3.0f, DType::kFloat32);
  Tensor busy = Full({2}, 0.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  gate_open.store(false);
  {
    StreamScope scope(Stream(Device::Cpu(), 1));
    ASSERT_TRUE(ops::Call("Gated", {busy}).ok());
  }
  // The gated kernel cannot finish until the read below returns.
  absl::StatusOr<float> v = done.Slice(0, 1).Reshape({}).Item<float>();
  gate_open.store(true);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 3.0f);
  absl::StatusOr<std::vector<float>> b = busy.ToVector<float>();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*b, (std::vector<float>{1, 1}));
}

// Counted as the read instruction it stands for, so stats do not depend on
// whether the VM happened to be idle.
TEST(IdleRead, CountsAsOneInstruction) {
  Tensor x = Full({}, 2.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  const VmStats before = VirtualMachine::Get().GetStats();
  absl::StatusOr<float> v = x.Item<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 2.0f);
  const VmStats after = VirtualMachine::Get().GetStats();
  EXPECT_EQ(after.received - before.received, 1u);
  EXPECT_EQ(after.dispatched - before.dispatched, 1u);
  EXPECT_EQ(after.finished - before.finished, 1u);
  EXPECT_EQ(after.in_flight, 0);
  EXPECT_EQ(after.pending_depth, 0);
}

// Threads write their own accumulators and read them back while another
// thread reads a shared tensor: each read sees exactly its thread's writes
// so far, whether the VM was idle (answered on the caller) or not (queued).
// Under TSan this also checks the idle path against the workers.
TEST(IdleRead, ReadsRacingOtherThreadsWritesSeeProgramOrder) {
  constexpr int kThreads = 3;
  constexpr int kOps = 600;
  Tensor shared = Full({8}, 5.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      StreamScope scope(Stream(Device::Cpu(), t % 2));
      Tensor acc = Full({8}, 0.0f, DType::kFloat32);
      Tensor one = Full({8}, 1.0f, DType::kFloat32);
      for (int i = 0; i < kOps; ++i) {
        if (!ops::AddInplace(acc, one).ok()) wrong.fetch_add(1);
        if (i % 3 == t % 3) {
          absl::StatusOr<std::vector<float>> v = acc.ToVector<float>();
          if (!v.ok() || (*v)[7] != static_cast<float>(i + 1)) wrong.fetch_add(1);
        }
        if (i % 5 == 0) {
          absl::StatusOr<std::vector<float>> s = shared.ToVector<float>();
          if (!s.ok() || (*s)[0] != 5.0f) wrong.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
