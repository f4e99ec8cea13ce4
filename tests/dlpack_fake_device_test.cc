// FromDLPack of device memory, without a GPU: the fake accelerator of
// fake_device.h stands in for cuda:0 (its device memory is host memory, so a
// host buffer can be imported as kDLCUDA). The release of the import goes
// to a CPU stream: the producer's deleter runs once, on a CPU worker, never
// the scheduler thread (a slow deleter would stall every device stream
// there), and only after the uses queued before the last handle dropped.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "base/thread_role.h"
#include "block_until.h"
#include "eagervm/dlpack.h"
#include "eagervm/eagervm.h"
#include "fake_device.h"

namespace eagervm {
namespace {

using testing::kFake;

const bool kInstalled = testing::InstallFakeAccelerator();

// A "device" buffer of n floats, offered as kDLCUDA device 0.
struct DeviceProducer {
  explicit DeviceProducer(std::vector<float> v) : values(std::move(v)) {
    shape[0] = static_cast<int64_t>(values.size());
    managed.dl_tensor.data = values.data();
    managed.dl_tensor.device = DLDevice{kDLCUDA, 0};
    managed.dl_tensor.ndim = 1;
    managed.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
    managed.dl_tensor.shape = shape;
    managed.dl_tensor.strides = nullptr;
    managed.dl_tensor.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* m) {
      auto* self = static_cast<DeviceProducer*>(m->manager_ctx);
      if (base::CurrentThreadRole() == base::ThreadRole::kScheduler ||
          testing::OnFakeDeviceThread()) {
        self->on_scheduler = true;  // or the device thread, its stand-in
      }
      self->deleted.fetch_add(1);
    };
  }
  std::vector<float> values;
  int64_t shape[1];
  DLManagedTensor managed{};
  std::atomic<int> deleted{0};
  std::atomic<bool> on_scheduler{false};
};

TEST(DLPackFakeDevice, ADeviceImportIsReleasedOnACpuWorkerAfterItsUses) {
  ASSERT_TRUE(kInstalled);
  DeviceProducer p({1, 2, 3, 4});
  std::atomic<bool> release{false}, timed_out{false};
  std::vector<float> seen;
  {
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t.device(), kFake);
    absl::StatusOr<std::vector<float>> v = t.ToVector<float>();  // zero-copy: the buffer
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, p.values);
    // A use queued before the drop on the current CPU stream, blocked until
    // the test says so: the release, queued there too, waits behind it.
    absl::Status s = vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
      return b->AccessBlobByCallback(
          t,
          [&](void* d, size_t n) {
            if (!testing::BlockUntil(release, std::chrono::seconds(20))) timed_out = true;
            seen.assign(static_cast<float*>(d), static_cast<float*>(d) + n / 4);
          },
          vm::AccessMode::kRead);
    });
    ASSERT_TRUE(s.ok()) << s;
  }  // the last handle: the release is queued behind the blocked read
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(p.deleted.load(), 0);  // still queued behind the blocked read
  release = true;
  ASSERT_TRUE(Sync().ok());
  EXPECT_FALSE(timed_out.load());
  EXPECT_EQ(seen, p.values);
  EXPECT_EQ(p.deleted.load(), 1);
  EXPECT_FALSE(p.on_scheduler.load());
}

}  // namespace
}  // namespace eagervm
