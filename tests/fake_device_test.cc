// The device-generic paths of the front door, run without a GPU, on the
// fake accelerator of fake_device.h (cuda:0: host memory, streams on the
// scheduler thread that order themselves, as CUDA's do). Under it: users'
// AccessBlobByCallback on a device tensor staged through a CPU stand-in
// (never on the scheduler, the tensor's bytes, a write's order, an unwritten
// tensor), host reads and FromVector through the device's stream, copies
// both ways, the stand-ins' release, where ReserveHostStaging is called, and
// random programs against a host model. Runs in every build (sanitizers
// included); no op kernel runs on the fake device, only copies and host
// accesses.
#include "fake_device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <vector>

#include "base/thread_role.h"
#include "block_until.h"
#include "eagervm/eagervm.h"
#include "memory_stats_util.h"

namespace eagervm {
namespace {

using testing::g_reserved_bytes;
using testing::g_reserves_elsewhere;
using testing::g_reserves_on_user;
using testing::kFake;
using vm::AccessMode;

const bool kInstalled = testing::InstallFakeAccelerator();

absl::Status Access(const Tensor& t, AccessMode mode, std::function<void(void*, size_t)> cb) {
  return vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
    return b->AccessBlobByCallback(t, cb, mode);
  });
}

std::vector<float> Values(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>{};
}

TEST(FakeDevice, FromVectorToVectorItemAndCopiesBothWays) {
  ASSERT_TRUE(kInstalled);
  Tensor g = FromVector<float>({1, 2, 3}, {3}, kFake);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g.device(), kFake);
  EXPECT_EQ(Values(g), (std::vector<float>{1, 2, 3}));
  absl::StatusOr<float> x = g.Slice(2, 3).Reshape({}).Item<float>();
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(*x, 3.0f);
  Tensor h = g.To(Device::Cpu());
  EXPECT_EQ(Values(h + h), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(Values((h + h).To(kFake)), (std::vector<float>{2, 4, 6}));
  ASSERT_TRUE(Sync().ok());
}

// Reads, writes (of a written and of a never-written tensor), and a CPU
// tensor a device-to-host copy made: every callback on a CPU stream's
// thread, with the tensor's bytes.
TEST(FakeDevice, UsersCallbacksRunOnACpuWorkerWithTheTensorsBytes) {
  Tensor g = FromVector<float>({1, 2, 3, 4}, {4}, kFake);
  Tensor h = g.To(Device::Cpu());
  std::atomic<int> on_scheduler{0}, calls{0};
  std::vector<float> read, rmw_seen, from_copy;
  auto note = [&] {
    calls.fetch_add(1);
    if (base::CurrentThreadRole() == base::ThreadRole::kScheduler ||
        testing::OnFakeDeviceThread()) {
      on_scheduler.fetch_add(1);  // or on the device thread, its stand-in
    }
  };
  ASSERT_TRUE(Access(g, AccessMode::kRead, [&](void* d, size_t n) {
                note();
                read.assign(static_cast<float*>(d), static_cast<float*>(d) + n / 4);
              }).ok());
  ASSERT_TRUE(Access(g, AccessMode::kWrite, [&](void* d, size_t n) {
                note();
                float* f = static_cast<float*>(d);
                rmw_seen.assign(f, f + n / 4);
                f[1] = 20;  // a partial write keeps the rest
              }).ok());
  ASSERT_TRUE(Access(h, AccessMode::kRead, [&](void* d, size_t n) {
                note();
                from_copy.assign(static_cast<float*>(d), static_cast<float*>(d) + n / 4);
              }).ok());
  Tensor e = Empty({3}, DType::kInt32, kFake);
  ASSERT_TRUE(Access(e, AccessMode::kWrite, [&](void* d, size_t) {
                note();
                int32_t* p = static_cast<int32_t*>(d);
                p[0] = 7, p[1] = 8, p[2] = 9;
              }).ok());
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(calls.load(), 4);
  EXPECT_EQ(on_scheduler.load(), 0);
  EXPECT_EQ(read, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(rmw_seen, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(from_copy, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(Values(g), (std::vector<float>{1, 20, 3, 4}));
  absl::StatusOr<std::vector<int32_t>> ev = e.ToVector<int32_t>();
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(*ev, (std::vector<int32_t>{7, 8, 9}));
}

// A view: the callback gets the view's bytes; the write lands there only.
TEST(FakeDevice, ACallbackOnAViewTouchesTheViewOnly) {
  Tensor g = FromVector<float>({1, 2, 3, 4, 5}, {5}, kFake);
  Tensor v = g.Slice(1, 3);
  std::vector<float> seen;
  ASSERT_TRUE(Access(v, AccessMode::kWrite, [&](void* d, size_t n) {
                float* f = static_cast<float*>(d);
                seen.assign(f, f + n / 4);
                f[0] = -1, f[1] = -2;
              }).ok());
  EXPECT_EQ(Values(g), (std::vector<float>{1, -1, -2, 4, 5}));
  EXPECT_EQ(seen, (std::vector<float>{2, 3}));
}

// A copy queued before the write sees the old bytes, one after it the new.
TEST(FakeDevice, AStagedWriteIsOrderedBetweenEarlierAndLaterUses) {
  Tensor g = FromVector<float>({1, 1}, {2}, kFake);
  Tensor before = g.To(Device::Cpu());
  ASSERT_TRUE(Access(g, AccessMode::kWrite, [](void* d, size_t n) {
                float* f = static_cast<float*>(d);
                for (size_t i = 0; i < n / 4; ++i) f[i] += 1;
              }).ok());
  Tensor after = g.To(Device::Cpu());
  EXPECT_EQ(Values(before), (std::vector<float>{1, 1}));
  EXPECT_EQ(Values(after), (std::vector<float>{2, 2}));
}

// A callback blocked until the test thread's device work finished: were it
// on the scheduler thread, that work could not run and it would time out.
TEST(FakeDevice, ABlockingCallbackStallsNoDeviceStream) {
  Tensor g = FromVector<float>({5}, {1}, kFake);
  std::atomic<bool> release{false}, timed_out{false};
  ASSERT_TRUE(Access(g, AccessMode::kRead, [&](void*, size_t) {
                if (!testing::BlockUntil(release, std::chrono::seconds(20))) timed_out = true;
              }).ok());
  Tensor other = FromVector<float>({6, 7}, {2}, kFake);
  EXPECT_EQ(Values(other.To(Device::Cpu())), (std::vector<float>{6, 7}));
  release = true;
  ASSERT_TRUE(Sync().ok());
  EXPECT_FALSE(timed_out.load());
}

// Reading a device tensor nothing wrote: the callback is skipped and the
// next Sync reports the failed copy, naming the call; then all is well.
TEST(FakeDevice, AnUnwrittenTensorSkipsTheCallbackAndSyncSaysWhy) {
  Tensor e = Empty({2}, DType::kFloat32, kFake);
  bool called = false;
  ASSERT_TRUE(Access(e, AccessMode::kRead, [&](void*, size_t) { called = true; }).ok());
  absl::Status s = Sync();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("AccessBlobByCallback"), absl::string_view::npos) << s;
  EXPECT_FALSE(called);
  EXPECT_TRUE(Sync().ok());
}

// The CPU stand-ins are released: host memory in use comes back to where it
// was after many staged reads and writes.
TEST(FakeDevice, StandInsAreReleased) {
  Tensor g = FromVector<float>(std::vector<float>(4096, 1.0f), {4096}, kFake);
  ASSERT_TRUE(Sync().ok());
  const int64_t before = testing::CpuMemoryStats().bytes_in_use;
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(
        Access(g, i % 2 == 0 ? AccessMode::kRead : AccessMode::kWrite, [](void*, size_t) {}).ok());
  }
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(testing::CpuMemoryStats().bytes_in_use, before);
}

// The host staging of reads, FromVector and host<->device copies is
// reserved on the submitting (user) thread; not for an upload from host
// memory a device copy wrote (pinned on a real GPU: no staging).
TEST(FakeDevice, HostStagingIsReservedOnTheUserThread) {
  const int user0 = g_reserves_on_user.load();
  const int64_t bytes0 = g_reserved_bytes.load();
  Tensor g = FromVector<float>(std::vector<float>(1000, 2.0f), {1000}, kFake);  // 4000
  EXPECT_EQ(Values(g).size(), 1000u);                                           // 4000
  Tensor h = g.To(Device::Cpu());                                               // 4000
  Tensor back = h.To(kFake);  // from device-written host memory: none
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(g_reserves_on_user.load() - user0, 3);
  EXPECT_EQ(g_reserved_bytes.load() - bytes0, 12000);
  EXPECT_EQ(g_reserves_elsewhere.load(), 0);
  const int user1 = g_reserves_on_user.load();
  Tensor pageable = FromVector<float>({1, 2}, {2});  // a CPU stream made it
  Tensor up = pageable.To(kFake);
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(g_reserves_on_user.load() - user1, 1);
}

// Random programs over two device tensors and their host copies: staged
// writes (add k to one element), staged reads, copies both ways, against a
// host model of the values.
TEST(FakeDevice, RandomStagedAccessProgramsMatchAHostModel) {
  std::mt19937 rng(7);
  for (int program = 0; program < 20; ++program) {
    std::vector<std::vector<float>> model = {std::vector<float>(8, 0.0f),
                                             std::vector<float>(8, 1.0f)};
    std::vector<Tensor> dev = {FromVector<float>(model[0], {8}, kFake),
                               FromVector<float>(model[1], {8}, kFake)};
    std::vector<std::vector<float>> expected;  // per staged read
    std::vector<std::vector<float>> got(64);
    int n_reads = 0;
    for (int step = 0; step < 40; ++step) {
      const int t = static_cast<int>(rng() % 2);
      const int i = static_cast<int>(rng() % 8);
      const float k = static_cast<float>(rng() % 5);
      switch (rng() % 4) {
        case 0:
          ASSERT_TRUE(Access(dev[t], AccessMode::kWrite, [i, k](void* d, size_t) {
                        static_cast<float*>(d)[i] += k;
                      }).ok());
          model[t][i] += k;
          break;
        case 1: {
          std::vector<float>* out = &got[n_reads];
          expected.push_back(model[t]);
          ++n_reads;
          ASSERT_TRUE(Access(dev[t], AccessMode::kRead, [out](void* d, size_t n) {
                        out->assign(static_cast<float*>(d), static_cast<float*>(d) + n / 4);
                      }).ok());
          break;
        }
        case 2:  // through the host and back
          dev[t] = dev[t].To(Device::Cpu()).To(kFake);
          break;
        case 3:  // the other tensor's values (no same-device copy: that is a kernel)
          dev[t] = dev[1 - t].To(Device::Cpu()).To(kFake);
          model[t] = model[1 - t];
          break;
      }
      if (n_reads == 64) break;
    }
    ASSERT_TRUE(Sync().ok());
    for (int r = 0; r < n_reads; ++r) ASSERT_EQ(got[r], expected[r]) << "program " << program;
    EXPECT_EQ(Values(dev[0]), model[0]) << "program " << program;
    EXPECT_EQ(Values(dev[1]), model[1]) << "program " << program;
  }
}

}  // namespace
}  // namespace eagervm
