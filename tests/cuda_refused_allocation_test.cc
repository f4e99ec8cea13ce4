// A device allocation the system refuses (no cuda_memory_limit: cudaMalloc
// says no) fails as data, as on the CPU (refused_allocation_test): a 4 TiB
// Zeros on the GPU is ResourceExhausted at the sync point, nothing spins,
// and the VM keeps computing. Needs a GPU; skips otherwise.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using testing_cuda::kGpu;

TEST(CudaRefusedAllocation, FourTebibytesFailAtTheSyncPoint) {
  EAGERVM_REQUIRE_CUDA();
  Tensor t = Zeros({int64_t{1} << 40}, DType::kFloat32, kGpu);
  ASSERT_TRUE(t.ok()) << t.status();
  absl::Status s = t.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_NE(s.message().find("cuda:0"), absl::string_view::npos) << s;
  t = Tensor();
  EXPECT_TRUE(Sync().ok());
  Tensor x = Full({4}, 2.0f, DType::kFloat32, kGpu);
  absl::StatusOr<std::vector<float>> v = (x + x).To(Device::Cpu()).ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<float>(4, 4.0f));
}

}  // namespace
}  // namespace eagervm
