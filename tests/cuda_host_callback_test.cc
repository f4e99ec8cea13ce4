// Users' host callbacks on CUDA tensors (issue 14's risk: "a blocking
// AccessBlobByCallback callback stalls every stream"): they run on a CPU
// stream's thread, never the scheduler, with the tensor's bytes, and a
// blocking one holds up no CUDA stream. Also: the staging blocks of host
// reads are allocated on the user thread (PinnedHostPool::Reserve), so the
// scheduler finds them cached. Needs a GPU; skips otherwise.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "base/thread_role.h"
#include "block_until.h"
#include "cuda_test_util.h"
#include "eagervm/eagervm.h"
#include "memory_stats_util.h"

namespace eagervm {
namespace {

using testing_cuda::kGpu;
using vm::AccessMode;

class CudaHostCallbacks : public ::testing::Test {
 protected:
  void SetUp() override { EAGERVM_REQUIRE_CUDA(); }
};

absl::Status Access(const Tensor& t, AccessMode mode, std::function<void(void*, size_t)> cb) {
  return vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
    return b->AccessBlobByCallback(t, cb, mode);
  });
}

// Reads, writes, and a CPU tensor made by a device-to-host copy (whose last
// writer is a CUDA copy stream): no callback runs on the scheduler thread.
TEST_F(CudaHostCallbacks, RunOnACpuStreamThreadNeverTheScheduler) {
  std::vector<float> v = {1, 2, 3, 4};
  Tensor g = FromVector<float>(absl::MakeConstSpan(v), {4}, kGpu);
  Tensor h = g.To(Device::Cpu());
  std::atomic<int> on_scheduler{0}, calls{0};
  auto note = [&](void*, size_t) {
    calls.fetch_add(1);
    if (base::CurrentThreadRole() == base::ThreadRole::kScheduler) on_scheduler.fetch_add(1);
  };
  ASSERT_TRUE(Access(g, AccessMode::kRead, note).ok());
  ASSERT_TRUE(Access(g, AccessMode::kWrite, note).ok());
  ASSERT_TRUE(Access(h, AccessMode::kRead, note).ok());
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(on_scheduler.load(), 0);
}

// The callback waits (up to 20 s) for the test thread, which meanwhile runs
// CUDA work and reads it back: were the callback on the scheduler thread,
// that work could not even be dispatched, and the callback would time out.
TEST_F(CudaHostCallbacks, ABlockingCallbackStallsNoCudaStream) {
  std::vector<float> v = {5, 6, 7};
  Tensor g = FromVector<float>(absl::MakeConstSpan(v), {3}, kGpu);
  std::atomic<bool> release{false}, timed_out{false};
  std::vector<float> seen;
  ASSERT_TRUE(Access(g, AccessMode::kRead, [&](void* data, size_t bytes) {
                if (!testing::BlockUntil(release, std::chrono::seconds(20))) timed_out = true;
                const float* f = static_cast<const float*>(data);
                seen.assign(f, f + bytes / sizeof(float));
              }).ok());
  Tensor other = ops::Add(Full({1000}, 1.0f, DType::kFloat32, kGpu),
                          Full({1000}, 2.0f, DType::kFloat32, kGpu));
  absl::StatusOr<float> x = ops::Sum(other).Item<float>();
  release = true;
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(*x, 3000.0f);
  ASSERT_TRUE(Sync().ok());
  EXPECT_FALSE(timed_out.load());
  EXPECT_EQ(seen, v);
}

// Read-modify-write through the stand-in: later GPU users see the write,
// earlier GPU readers do not (they ran before the copy back).
TEST_F(CudaHostCallbacks, AWriteIsOrderedBetweenEarlierAndLaterDeviceUsers) {
  std::vector<float> v(1 << 16, 2.0f);
  Tensor g = FromVector<float>(absl::MakeConstSpan(v), {1 << 16}, kGpu);
  Tensor before = ops::Mul(g, g);  // queued before the write: 4
  ASSERT_TRUE(Access(g, AccessMode::kWrite, [](void* data, size_t bytes) {
                float* f = static_cast<float*>(data);
                for (size_t i = 0; i < bytes / sizeof(float); ++i) f[i] += 1.0f;  // 3
              }).ok());
  Tensor after = ops::Mul(g, g);  // queued after: 9
  absl::StatusOr<float> b = ops::Sum(before).Item<float>();
  absl::StatusOr<float> a = ops::Sum(after).Item<float>();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*b, 4.0f * (1 << 16));
  EXPECT_EQ(*a, 9.0f * (1 << 16));
}

// A CUDA tensor carrying an error: the callback is skipped, Sync reports it.
TEST_F(CudaHostCallbacks, AnErrorTensorSkipsTheCallback) {
  Tensor bad = Empty({4}, DType::kFloat32, kGpu);  // never written: reading it fails
  bool called = false;
  ASSERT_TRUE(Access(bad, AccessMode::kRead, [&](void*, size_t) { called = true; }).ok());
  EXPECT_FALSE(Sync().ok());
  EXPECT_FALSE(called);
  EXPECT_TRUE(Sync().ok());  // reported once
}

// The staging block of a host read of a new size class is allocated on the
// user thread before the read is queued: the scheduler's allocation is a
// cache hit (a miss would mean cudaHostAlloc ran on the scheduler thread).
TEST_F(CudaHostCallbacks, StagingBlocksAreAllocatedOnTheUserThread) {
  constexpr int64_t kFloats = (48 << 20) / 4;  // a 64 MiB class no other test here uses
  Tensor g = Full({kFloats}, 0.5f, DType::kFloat32, kGpu);
  ASSERT_TRUE(g.Wait().ok());
  const int64_t misses = testing::CpuMemoryStats().cache_misses;
  absl::StatusOr<std::vector<float>> v = g.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->size(), static_cast<size_t>(kFloats));
  EXPECT_EQ((*v)[kFloats - 1], 0.5f);
  EXPECT_EQ(testing::CpuMemoryStats().cache_misses, misses);
}

}  // namespace
}  // namespace eagervm
