// Dependence edges across streams (DESIGN §3), each shown to matter: a slow
// kernel on one stream and a fast one on the other give a different result
// if the edge between them were missing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "block_until.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

constexpr auto kSlow = std::chrono::milliseconds(40);
std::atomic<int> slow_kernels_done{0};

Stream S(int i) { return Stream(Device::Cpu(), i); }

// SlowFill(self; value): sleeps, then self[:] = value (in place).
// SlowCopy(x) -> y: sleeps, then y = x (a slow reader).
void RegisterSlowOps() {
  static const bool registered = [] {
    auto same_meta = [](const std::vector<TensorMeta>& in,
                        const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{in[0]};
    };
    auto no_outputs = [](const std::vector<TensorMeta>&,
                         const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{};
    };
    OpOptions mutates0;
    mutates0.mutated_inputs = {0};
    EXPECT_TRUE(RegisterOp("SlowFill", no_outputs, mutates0).ok());
    EXPECT_TRUE(RegisterKernel("SlowFill", DeviceType::kCPU, [](KernelContext& ctx) {
                  std::this_thread::sleep_for(kSlow);
                  float* self = ctx.mutable_input<float>(0);
                  const float v = static_cast<float>(std::get<double>(ctx.attrs().at("value")));
                  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) self[i] = v;
                  slow_kernels_done.fetch_add(1);
                  return absl::OkStatus();
                }).ok());
    EXPECT_TRUE(RegisterOp("SlowCopy", same_meta).ok());
    EXPECT_TRUE(RegisterKernel("SlowCopy", DeviceType::kCPU, [](KernelContext& ctx) {
                  std::this_thread::sleep_for(kSlow);
                  const float* x = ctx.input<float>(0);
                  float* y = ctx.output<float>(0);
                  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) y[i] = x[i];
                  slow_kernels_done.fetch_add(1);
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)registered;
}

void SlowFill(const Tensor& t, double value) {
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowFill", {t}, Attrs{{"value", value}});
  ASSERT_TRUE(r.ok()) << r.status();
}
Tensor SlowCopy(const Tensor& t) {
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowCopy", {t});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? (*r)[0] : Tensor();
}

std::vector<float> Values(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>();
}

// A settled tensor: its creation is done, so only the ops under test are queued.
Tensor Settled(Shape shape, float v) {
  Tensor t = Full(shape, v, DType::kFloat32);
  EXPECT_TRUE(t.Wait().ok());
  return t;
}

class DependenceTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterSlowOps(); }
};

// RAW: a slow write on stream 0, then a read (copy) on stream 1.
TEST_F(DependenceTest, ReadAfterWriteAcrossStreams) {
  Tensor t = Settled({4}, 0);
  {
    StreamScope s0(S(0));
    SlowFill(t, 1);
  }
  Tensor copy;
  {
    StreamScope s1(S(1));
    copy = t.To(Device::Cpu());
  }
  EXPECT_EQ(Values(copy), std::vector<float>(4, 1));
}

// WAR: a slow read on stream 0, then an overwrite on stream 1; the reader
// must have seen the old value.
TEST_F(DependenceTest, WriteAfterReadAcrossStreams) {
  Tensor t = Settled({4}, 1);
  Tensor seen;
  {
    StreamScope s0(S(0));
    seen = SlowCopy(t);
  }
  {
    StreamScope s1(S(1));
    ASSERT_TRUE(ops::FillInplace(t, 2.0f).ok());
  }
  EXPECT_EQ(Values(seen), std::vector<float>(4, 1));
  EXPECT_EQ(Values(t), std::vector<float>(4, 2));
}

// WAW: a slow write of 1 on stream 0, a fast write of 2 on stream 1.
TEST_F(DependenceTest, WriteAfterWriteAcrossStreams) {
  Tensor t = Settled({4}, 0);
  {
    StreamScope s0(S(0));
    SlowFill(t, 1);
  }
  {
    StreamScope s1(S(1));
    ASSERT_TRUE(ops::FillInplace(t, 2.0f).ok());
  }
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(Values(t), std::vector<float>(4, 2));
}

// Several readers on one stream, then a writer on the other: it waits for all.
TEST_F(DependenceTest, WriteWaitsForEveryReader) {
  Tensor t = Settled({3}, 5);
  std::vector<Tensor> seen;
  {
    StreamScope s0(S(0));
    for (int i = 0; i < 3; ++i) seen.push_back(SlowCopy(t));
  }
  {
    StreamScope s1(S(1));
    ASSERT_TRUE(ops::FillInplace(t, 6.0f).ok());
  }
  for (const Tensor& s : seen) EXPECT_EQ(Values(s), std::vector<float>(3, 5));
  EXPECT_EQ(Values(t), std::vector<float>(3, 6));
}

// A write through a Slice on stream 1 orders against a read of the base on
// stream 0 (views share their base's dependence).
TEST_F(DependenceTest, WriteThroughViewThenReadBase) {
  Tensor base = Settled({4, 2}, 0);
  Tensor rows = base.Slice(1, 3);
  ASSERT_TRUE(rows.ok());
  {
    StreamScope s1(S(1));
    SlowFill(rows, 5);
  }
  Tensor copy;
  {
    StreamScope s0(S(0));
    copy = base.To(Device::Cpu());
  }
  EXPECT_EQ(Values(copy), (std::vector<float>{0, 0, 5, 5, 5, 5, 0, 0}));
}

TEST_F(DependenceTest, ReadBaseThenWriteThroughView) {
  Tensor base = Settled({4, 2}, 3);
  Tensor seen;
  {
    StreamScope s0(S(0));
    seen = SlowCopy(base);
  }
  {
    StreamScope s1(S(1));
    ASSERT_TRUE(ops::FillInplace(base.Slice(2, 4).Reshape({4}), 7.0f).ok());
  }
  EXPECT_EQ(Values(seen), std::vector<float>(8, 3));
  EXPECT_EQ(Values(base), (std::vector<float>{3, 3, 3, 3, 7, 7, 7, 7}));
}

// A chain that hops between streams: each hop is a RAW edge behind a slow writer.
TEST_F(DependenceTest, ChainAcrossStreams) {
  Tensor t = Settled({2}, 0);
  for (int i = 0; i < 4; ++i) {
    StreamScope s(S(i % 2));
    if (i % 2 == 0) {
      SlowFill(t, 10);
    } else {
      ASSERT_TRUE(ops::AddInplace(t, Full({2}, 1.0f, DType::kFloat32)).ok());
    }
  }
  EXPECT_EQ(Values(t), std::vector<float>(2, 11));
}

// Sync() returns only after all earlier work on both streams is done.
TEST_F(DependenceTest, SyncWaitsForBothStreams) {
  Tensor a = Settled({2}, 0);
  Tensor b = Settled({2}, 0);
  const int before = slow_kernels_done.load();
  {
    StreamScope s0(S(0));
    SlowFill(a, 1);
    SlowFill(a, 2);
  }
  {
    StreamScope s1(S(1));
    SlowFill(b, 3);
  }
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(slow_kernels_done.load() - before, 3);
}

// Two independent kernels on two streams run at the same time (the streams
// really are concurrent): a callback on stream 0 waits for one on stream 1
// to have run. Serialised streams would leave it waiting (until its 20 s
// limit, then the test fails); no wall-clock bound is asserted.
TEST_F(DependenceTest, IndependentStreamsOverlap) {
  Tensor a = Settled({2}, 0);
  Tensor b = Settled({2}, 0);
  std::atomic<bool> b_ran{false}, timed_out{false};
  auto fill = [](void* data, size_t bytes, float v) {
    for (size_t i = 0; i < bytes / sizeof(float); ++i) static_cast<float*>(data)[i] = v;
  };
  {
    StreamScope s0(S(0));
    ASSERT_TRUE(vm::PhysicalRun([&](vm::InstructionsBuilder* builder) {
                  return builder->AccessBlobByCallback(
                      a,
                      [&](void* data, size_t bytes) {
                        if (!testing::BlockUntil(b_ran, std::chrono::seconds(20))) {
                          timed_out = true;
                        }
                        fill(data, bytes, 1);
                      },
                      vm::AccessMode::kWrite);
                }).ok());
  }
  {
    StreamScope s1(S(1));
    ASSERT_TRUE(vm::PhysicalRun([&](vm::InstructionsBuilder* builder) {
                  return builder->AccessBlobByCallback(
                      b,
                      [&](void* data, size_t bytes) {
                        fill(data, bytes, 2);
                        b_ran = true;
                      },
                      vm::AccessMode::kWrite);
                }).ok());
  }
  // A reader of only b does not wait for a (still blocked, or just done).
  EXPECT_EQ(Values(b), std::vector<float>(2, 2));
  ASSERT_TRUE(Sync().ok());
  EXPECT_FALSE(timed_out.load()) << "stream 0's callback ran alone: the streams are serialised";
  EXPECT_EQ(Values(a), std::vector<float>(2, 1));
}

}  // namespace
}  // namespace eagervm
