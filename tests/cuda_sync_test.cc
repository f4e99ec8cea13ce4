// The CUDA backend in VmOptions::synchronous mode (needs a GPU; skips
// otherwise): every op waits for the device, results match, and host reads
// do not leak a CUDA event each (C2 of issue 14: a synchronous stream used to
// record an event per host access that nothing ever polled or recycled).
#include <gtest/gtest.h>

#include <vector>

#include "configured_vm.h"
#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

#ifdef EAGERVM_WITH_CUDA
#include "device/cuda/cuda_handles.h"
#endif

namespace eagervm {
namespace {

using testing_cuda::kGpu;

const auto* const env = ::testing::AddGlobalTestEnvironment(
    new testing::ConfiguredVm([](VmOptions& o) { o.synchronous = true; }));

class CudaSynchronous : public ::testing::Test {
 protected:
  void SetUp() override { EAGERVM_REQUIRE_CUDA(); }
};

TEST_F(CudaSynchronous, OpsCopiesAndHostReadsGiveTheValues) {
  ASSERT_TRUE(VirtualMachine::Get().options().synchronous);
  std::vector<float> a = {1, 2, 3, 4}, b = {10, 20, 30, 40};
  Tensor x = FromVector<float>(absl::MakeConstSpan(a), {2, 2}, kGpu);
  Tensor y = FromVector<float>(absl::MakeConstSpan(b), {2, 2});
  Tensor sum = ops::Add(x, y.To(kGpu));
  EXPECT_EQ(*sum.ToVector<float>(), (std::vector<float>{11, 22, 33, 44}));
  Tensor prod = ops::MatMul(x, x);  // [[7, 10], [15, 22]]
  EXPECT_EQ(*prod.To(Device::Cpu()).ToVector<float>(), (std::vector<float>{7, 10, 15, 22}));
  Tensor host = Zeros({2, 2}, DType::kFloat32);
  ASSERT_TRUE(ops::CopyInto(host, sum).ok());
  EXPECT_EQ(*host.ToVector<float>(), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(*ops::Sum(sum).Item<float>(), 110.0f);
  EXPECT_TRUE(sum.Wait().ok());
  EXPECT_TRUE(Sync().ok());
}

TEST_F(CudaSynchronous, TenThousandItemsCreateNoEvents) {
#ifdef EAGERVM_WITH_CUDA
  Tensor x = Full({16}, 3.0f, DType::kFloat32, kGpu);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(*x.Slice(0, 1).Reshape({}).Item<float>(), 3.0f);
  const int64_t before = device::cuda::CudaEventsCreated();
  for (int i = 0; i < 10'000; ++i) {
    absl::StatusOr<float> v = x.Slice(i % 16, i % 16 + 1).Reshape({}).Item<float>();
    ASSERT_TRUE(v.ok()) << v.status();
    ASSERT_EQ(*v, 3.0f);
  }
  EXPECT_EQ(device::cuda::CudaEventsCreated(), before) << "an event per host read: a leak";
  EXPECT_TRUE(Sync().ok());
#endif
}

}  // namespace
}  // namespace eagervm
