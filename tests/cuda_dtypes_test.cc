// uint8, float16 and bfloat16 on CUDA: Cast (rounding once, specials kept),
// Fill, and the 16-bit ops computed in float32 (a float16 sum of 4096 ones is
// 4096), compared with the CPU. Skipped without a GPU (scripts/gpu_check.sh).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using testing_cuda::kGpu;

std::vector<double> OnHost(const Tensor& t) {
  absl::StatusOr<std::vector<double>> v =
      ops::Cast(t.To(Device::Cpu()), DType::kFloat64).ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>{};
}

TEST(CudaDTypes, CastMatchesTheCpu) {
  EAGERVM_REQUIRE_CUDA();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = FromVector<float>({65504, 65520, 1e-8f, inf, -inf, 1.0f + 0x1p-11f, -5, 300}, {8});
  for (DType d : {DType::kFloat16, DType::kBFloat16, DType::kUInt8}) {
    SCOPED_TRACE(ToString(d));
    Tensor cpu = ops::Cast(x, d);
    Tensor gpu = ops::Cast(x.To(kGpu), d);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    EXPECT_EQ(OnHost(gpu), OnHost(cpu));
    EXPECT_EQ(OnHost(ops::Cast(gpu, DType::kInt32)), OnHost(ops::Cast(cpu, DType::kInt32)));
  }
}

TEST(CudaDTypes, HalfComputeAccumulatesInFloat32) {
  EAGERVM_REQUIRE_CUDA();
  for (DType d : {DType::kFloat16, DType::kBFloat16}) {
    SCOPED_TRACE(ToString(d));
    Tensor ones = Full({4096}, 1, d, kGpu);
    EXPECT_EQ(OnHost(ops::Sum(ones)), std::vector<double>{4096});
    Tensor a = Full({1, 4096}, 1, d, kGpu), b = Full({4096, 1}, 1, d, kGpu);
    EXPECT_EQ(OnHost(ops::MatMul(a, b)), std::vector<double>{4096});
    Tensor one = Full({3}, 1, d, kGpu);
    EXPECT_EQ(OnHost(ops::Add(one, one * 0.5)), (std::vector<double>{1.5, 1.5, 1.5}));
    EXPECT_EQ(OnHost(ops::Exp(Full({1}, 0, d, kGpu))), std::vector<double>{1});
  }
}

}  // namespace
}  // namespace eagervm
