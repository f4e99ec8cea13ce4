// Out of memory on the device with VmOptions::cuda_memory_limit (needs a GPU;
// skips otherwise): the failure is data (ResourceExhausted at the sync point,
// naming the device and the limit), the VM keeps running, and memory released
// by dropped tensors is available again.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using testing_cuda::kGpu;

constexpr int64_t kLimit = 64 << 20;
constexpr int64_t kFloats = (24 << 20) / 4;  // 24 MiB tensors: two fit, three do not

class CudaOom : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    VmOptions o = VmOptions::FromEnv();
    o.cuda_memory_limit = kLimit;
    ASSERT_TRUE(VirtualMachine::Configure(o).ok());
  }
  void SetUp() override { EAGERVM_REQUIRE_CUDA(); }
};

TEST_F(CudaOom, ExhaustionIsDataAndMemoryComesBack) {
  Tensor a = Full({kFloats}, 1.0f, DType::kFloat32, kGpu);
  Tensor b = Full({kFloats}, 2.0f, DType::kFloat32, kGpu);
  Tensor c = Full({kFloats}, 3.0f, DType::kFloat32, kGpu);  // over the limit
  ASSERT_TRUE(c.ok()) << "the op itself is accepted; the failure is at run time";
  absl::Status s = c.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_NE(s.message().find("cuda:0"), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find("limit"), absl::string_view::npos) << s;
  // Dependents forward the error without computing.
  Tensor d = ops::AddScalar(c, 1.0f);
  EXPECT_EQ(d.Wait().code(), absl::StatusCode::kResourceExhausted);
  // The tensors that fit are intact.
  EXPECT_EQ(*a.Slice(0, 1).Reshape({}).Item<float>(), 1.0f);
  EXPECT_EQ(*b.Slice(0, 1).Reshape({}).Item<float>(), 2.0f);
  (void)Sync();
  // Release one: the same allocation now succeeds.
  a = Tensor();
  Tensor e = Full({kFloats}, 4.0f, DType::kFloat32, kGpu);
  ASSERT_TRUE(e.Wait().ok());
  EXPECT_EQ(*e.Slice(kFloats - 1, kFloats).Reshape({}).Item<float>(), 4.0f);
  EXPECT_TRUE(Sync().ok());
  const VmStats st = VirtualMachine::Get().GetStats();
  for (const MemoryStats& m : st.memory) {
    if (m.device == kGpu) EXPECT_LE(m.bytes_in_use, kLimit);
  }
}

TEST_F(CudaOom, EmptyCacheTrimsAndTheDeviceStillWorks) {
  {
    Tensor big = Full({kFloats}, 1.0f, DType::kFloat32, kGpu);
    ASSERT_TRUE(big.Wait().ok());
  }
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
  Tensor t = Full({4}, 9, DType::kInt32, kGpu);
  EXPECT_EQ(*t.ToVector<int32_t>(), (std::vector<int32_t>{9, 9, 9, 9}));
}

}  // namespace
}  // namespace eagervm
