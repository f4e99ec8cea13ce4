// Who keeps a storage alive (docs/architecture.md): an instruction's operands
// do not own their storages; the storage's release instruction, ordered after
// every earlier use, frees it. These cases drop the last handle while uses are
// still queued or running; under ASan a storage freed too early is a
// heap-use-after-free, under TSan a race.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using std::chrono::milliseconds;

absl::StatusOr<std::vector<TensorMeta>> SameAsInput(const std::vector<TensorMeta>& in,
                                                    const Attrs&) {
  return std::vector<TensorMeta>{in.at(0)};
}
absl::StatusOr<std::vector<TensorMeta>> NoOutputs(const std::vector<TensorMeta>&, const Attrs&) {
  return std::vector<TensorMeta>{};
}

// A copy that first sleeps, so later instructions queue behind it.
absl::Status SlowCopyKernel(KernelContext& ctx) {
  std::this_thread::sleep_for(milliseconds(20));
  const float* in = ctx.input<float>(0);
  float* out = ctx.output<float>(0);
  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) out[i] = in[i];
  return absl::OkStatus();
}

// The last handle of a tensor, dropped by the DropHeld kernel on a VM thread.
std::optional<Tensor> held;

void RegisterOnce() {
  static const bool done = [] {
    EXPECT_TRUE(RegisterOp("SlowCopy", SameAsInput).ok());
    EXPECT_TRUE(RegisterKernel("SlowCopy", DeviceType::kCPU, SlowCopyKernel).ok());
    EXPECT_TRUE(RegisterOp("DropHeld", NoOutputs).ok());
    EXPECT_TRUE(RegisterKernel("DropHeld", DeviceType::kCPU, [](KernelContext&) {
                  held.reset();
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)done;
}

std::vector<float> Values(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>{};
}

TEST(StorageLifetime, DropWhileQueuedOnTwoStreams) {
  RegisterOnce();
  for (int round = 0; round < 5; ++round) {
    Tensor x = Full({1024}, 3.0f, DType::kFloat32);  // written on stream 0
    Tensor on1, on0;
    {
      StreamScope scope(Stream(Device::Cpu(), 1));
      absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowCopy", {x});  // reads x on stream 1
      ASSERT_TRUE(r.ok()) << r.status();
      on1 = (*r)[0];
    }
    absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowCopy", {x});  // and on stream 0
    ASSERT_TRUE(r.ok()) << r.status();
    on0 = (*r)[0];
    x = Tensor();  // the last handle: its release must wait for both readers
    EXPECT_EQ(Values(on1), std::vector<float>(1024, 3.0f));
    EXPECT_EQ(Values(on0), std::vector<float>(1024, 3.0f));
  }
  EXPECT_TRUE(Sync().ok());
}

TEST(StorageLifetime, DropInsideKernel) {
  RegisterOnce();
  for (int round = 0; round < 5; ++round) {
    held = Full({256}, 5.0f, DType::kFloat32);
    Tensor copy;
    {
      StreamScope scope(Stream(Device::Cpu(), 1));
      absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowCopy", {*held});
      ASSERT_TRUE(r.ok()) << r.status();
      copy = (*r)[0];
    }
    // A kernel on stream 0 drops the last handle while stream 1 still reads
    // it: the release comes from a VM thread and is ordered after the read.
    Tensor token = Full({1}, 0.0f, DType::kFloat32);
    ASSERT_TRUE(ops::Call("DropHeld", {token}).ok());
    EXPECT_EQ(Values(copy), std::vector<float>(256, 5.0f));
  }
  EXPECT_TRUE(Sync().ok());
  EXPECT_FALSE(held.has_value());
}

TEST(StorageLifetime, NeverWrittenInputDropped) {
  RegisterOnce();
  // No write was ever submitted to `e`, so no release instruction is queued
  // for it: the reading op itself keeps it alive until it has failed.
  Tensor e = Empty({64}, DType::kFloat32);
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowCopy", {e});
  ASSERT_TRUE(r.ok()) << r.status();
  e = Tensor();
  absl::Status s = (*r)[0].Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("never written"), std::string_view::npos) << s;
  (void)Sync();  // reports (and clears) the same error
}

TEST(StorageLifetime, ViewOutlivesBase) {
  RegisterOnce();
  Tensor base = Full({8}, 2.0f, DType::kFloat32);
  Tensor view = base.Slice(0, 4);
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowCopy", {view});
  ASSERT_TRUE(r.ok()) << r.status();
  base = Tensor();  // the view still holds the storage
  ASSERT_TRUE(ops::AddInplace(view, view).ok());
  EXPECT_EQ(Values((*r)[0]), std::vector<float>(4, 2.0f));
  EXPECT_EQ(Values(view), std::vector<float>(4, 4.0f));
}

}  // namespace
}  // namespace eagervm
