// Two GPUs (issue 14's C3 and L3): streams, events and kernels of a device
// land on that device whatever the user thread's current device is, and the
// user's current device is left as it was. Needs two CUDA GPUs; skips
// otherwise (the H200 machine of scripts/gpu_check.sh has one).
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

#ifdef EAGERVM_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace eagervm {
namespace {

using testing_cuda::kGpu;

const Device kGpu1 = Device::Cuda(1);

class CudaMultiGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    EAGERVM_REQUIRE_CUDA();
    if (CudaDeviceCount() < 2) {
      GTEST_SKIP() << "needs two CUDA GPUs: CudaDeviceCount() is " << CudaDeviceCount();
    }
  }
};

int CurrentCudaDevice() {
  int d = -1;
#ifdef EAGERVM_WITH_CUDA
  if (cudaGetDevice(&d) != cudaSuccess) d = -1;
#endif
  return d;
}

void SetCudaDevice(int d) {
#ifdef EAGERVM_WITH_CUDA
  ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
#endif
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

// Work on GPU 1 from a thread whose current device is 0, then the reverse:
// right values (a stream or event on the wrong device fails the launch or
// the wait), and the thread's current device unchanged.
TEST_F(CudaMultiGpu, WorkOnEitherDeviceLeavesTheUsersCurrentDeviceAlone) {
  const std::vector<float> v = Iota(1 << 16);
  for (int current : {0, 1}) {
    SetCudaDevice(current);
    const Device other = current == 0 ? kGpu1 : kGpu;
    Tensor x = FromVector<float>(absl::MakeConstSpan(v), {1 << 16}, other);
    Tensor y = ops::Add(x, x);
    absl::StatusOr<float> last = y.Slice((1 << 16) - 1, 1 << 16).Reshape({}).Item<float>();
    ASSERT_TRUE(last.ok()) << last.status();
    EXPECT_EQ(*last, 2.0f * ((1 << 16) - 1));
    EXPECT_EQ(CurrentCudaDevice(), current);
  }
  SetCudaDevice(0);
}

// A stream first used after the user switched devices is created on its own
// device (L3: the old code cached the user's choice).
TEST_F(CudaMultiGpu, AStreamCreatedAfterTheUserSwitchedDevicesIsOnItsDevice) {
  SetCudaDevice(1);
  Tensor a;
  {
    StreamScope on(Stream(kGpu, 5));  // a stream of GPU 0 no test used before
    a = Full({1024}, 3.0f, DType::kFloat32, kGpu);
    a = ops::Mul(a, a);
  }
  absl::StatusOr<float> s = ops::Sum(a).Item<float>();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, 9.0f * 1024);
  EXPECT_EQ(CurrentCudaDevice(), 1);
  SetCudaDevice(0);
}

// Peer copies both ways, with a cross-stream edge on GPU 1 in between (its
// events are recorded on GPU 1's streams: C3).
TEST_F(CudaMultiGpu, CopiesBetweenGpusAndCrossStreamOrderOnTheSecond) {
  const std::vector<float> v = Iota(1 << 18);
  Tensor x0 = FromVector<float>(absl::MakeConstSpan(v), {1 << 18}, kGpu);
  Tensor x1 = x0.To(kGpu1);
  Tensor y1;
  {
    StreamScope on(Stream(kGpu1, 1));
    y1 = ops::Add(x1, x1);  // stream 1 of GPU 1 reads what the copy wrote
  }
  Tensor z1 = ops::Mul(y1, y1);  // back on stream 0 of GPU 1
  Tensor back = z1.To(kGpu);
  absl::StatusOr<std::vector<float>> got = back.ToVector<float>();
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t i = 0; i < v.size(); i += 4099) ASSERT_EQ((*got)[i], 4.0f * v[i] * v[i]) << i;
  ASSERT_TRUE(Sync().ok());
}

// A user callback on GPU 1's tensor (staged through the host) and the stats
// of both devices.
TEST_F(CudaMultiGpu, HostCallbacksAndStatsOnTheSecondGpu) {
  Tensor g = Full({256}, 1.5f, DType::kFloat32, kGpu1);
  float first = 0;
  absl::Status s = vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
    return b->AccessBlobByCallback(
        g, [&](void* data, size_t) { first = static_cast<float*>(data)[0]; },
        vm::AccessMode::kRead);
  });
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(first, 1.5f);
  bool saw1 = false;
  for (const MemoryStats& m : VirtualMachine::Get().GetStats().memory) {
    if (m.device == kGpu1) saw1 = m.bytes_reserved > 0;
  }
  EXPECT_TRUE(saw1);
}

}  // namespace
}  // namespace eagervm
