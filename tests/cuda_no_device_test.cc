// Without a usable GPU (CI, developer machines) the CUDA device must fail
// cleanly: CudaDeviceCount() is 0 without crashing or logging, and every use
// of Device::Cuda(0) is a FailedPrecondition naming the device; the CPU keeps
// working. (On a GPU machine the device exists and these tests skip.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eagervm/eagervm.h"
#include "ops/op_registry.h"

namespace eagervm {
namespace {

class NoCudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (CudaDeviceCount() > 0)
      GTEST_SKIP() << "a CUDA device is present; the cuda_* tests cover it";
  }
};

void ExpectUnavailable(const absl::Status& s, const char* op) {
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find(op), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find("cuda:0"), absl::string_view::npos) << s;
  EXPECT_NE(s.message().find("not available"), absl::string_view::npos) << s;
}

TEST(CudaDeviceCount, IsZeroOrMoreStableAndSilent) {
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int n = CudaDeviceCount();
  EXPECT_EQ(CudaDeviceCount(), n);
  EXPECT_GE(n, 0);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(NoCudaDevice, CreationOnCudaFails) {
  Tensor t = Full({2, 3}, 1.0f, DType::kFloat32, Device::Cuda(0));
  ASSERT_FALSE(t.ok());
  ExpectUnavailable(t.status(), "Full");  // named as the user called it
  Tensor z = Zeros({4}, DType::kInt32, Device::Cuda(0));
  EXPECT_FALSE(z.ok());
  std::vector<float> v = {1, 2, 3};
  Tensor f = FromVector<float>(absl::MakeConstSpan(v), {3}, Device::Cuda(0));
  ASSERT_FALSE(f.ok());
  ExpectUnavailable(f.status(), "FromVector");
}

TEST_F(NoCudaDevice, CopiesToAndFromCudaFail) {
  Tensor cpu = Full({8}, 2.0f, DType::kFloat32);
  Tensor gpu = cpu.To(Device::Cuda(0));
  ASSERT_FALSE(gpu.ok());
  ExpectUnavailable(gpu.status(), "To");
  // A tensor meta on cuda cannot even be made, so CopyInto is tested from the
  // CPU side: an error tensor input returns its error at once.
  EXPECT_EQ(ops::CopyInto(cpu, gpu).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(NoCudaDevice, StreamsOnCudaHaveNoHandle) {
  EXPECT_EQ(Stream::Default(Device::Cuda(0)).native_handle(), nullptr);
  EXPECT_EQ(Stream(Device::Cuda(0), 1).native_handle(), nullptr);
  EXPECT_EQ(Stream(Device::Cuda(3), 0).native_handle(), nullptr);
}

TEST_F(NoCudaDevice, TheCpuKeepsWorkingAfterCudaFailures) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(Full({1}, 1, DType::kInt64, Device::Cuda(0)).ok());
  }
  Tensor a = Full({3}, 2.5f, DType::kFloat32);
  Tensor b = a + a;
  absl::StatusOr<std::vector<float>> v = b.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<float>{5, 5, 5}));
  EXPECT_TRUE(Sync().ok());  // rejected calls queued nothing and left no error behind
}

#if EAGERVM_WITH_CUDA
// The CUDA kernel table needs no device: the model ops have CUDA kernels for
// every dtype their CPU kernels take, uint8 included; so do the index ops
// (which check their indices on the device, kernels/cuda/index_check.h),
// CrossEntropy and the optimizers' fused updates, for exactly the CPU's dtypes.
TEST(CudaKernelTable, ModelIndexAndOptimizerOpsHaveCudaKernels) {
  const internal::OpRegistry& r = internal::OpRegistry::Get();
  const std::vector<DType> numeric = {DType::kInt32,   DType::kInt64,   DType::kFloat32,
                                      DType::kFloat64, DType::kFloat16, DType::kBFloat16};
  const std::vector<DType> floats = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                     DType::kBFloat16};
  const std::vector<DType> every = {DType::kBool,    DType::kInt32,   DType::kInt64,
                                    DType::kFloat32, DType::kFloat64, DType::kUInt8,
                                    DType::kFloat16, DType::kBFloat16};
  const std::vector<std::pair<std::string, const std::vector<DType>*>> expected = {
      {"Min", &numeric},
      {"SubInplace", &numeric},
      {"Axpy", &numeric},
      {"DivScalarInplace", &numeric},
      {"Argmax", &numeric},
      {"Argmin", &numeric},
      {"MatMulTransposed", &numeric},
      {"BatchMatMul", &numeric},
      {"Gelu", &floats},
      {"LayerNorm", &floats},
      {"Concat", &every},
      {"Split", &every}};
  for (const auto& [op, dtypes] : expected) {
    for (DType d : *dtypes) {
      EXPECT_NE(r.MustFind(op).FindKernel(DeviceType::kCUDA, d), nullptr)
          << op << " has no CUDA kernel for " << ToString(d);
    }
  }
  for (const char* op : {"Max",        "Min",       "Argmax",
                         "Argmin",     "Add",       "Sub",
                         "Mul",        "Div",       "Maximum",
                         "AddInplace", "AddScalar", "SubScalar",
                         "MulScalar",  "DivScalar", "MulScalarInplace",
                         "SubInplace", "Axpy",      "DivScalarInplace",
                         "Eq",         "Ne",        "Lt",
                         "Le",         "Gt",        "Ge",
                         "Minimum",    "Where",     "Abs"}) {
    EXPECT_NE(r.MustFind(op).FindKernel(DeviceType::kCUDA, DType::kUInt8), nullptr) << op;
  }
  for (const char* op : {"IndexSelect", "IndexAdd", "OneHot", "CrossEntropy", "SgdStep",
                         "SgdMomentumStep", "AdamStep"}) {
    int cuda_kernels = 0;
    for (DType d : every) {
      const bool cpu = r.MustFind(op).FindKernel(DeviceType::kCPU, d) != nullptr;
      const bool cuda = r.MustFind(op).FindKernel(DeviceType::kCUDA, d) != nullptr;
      EXPECT_EQ(cuda, cpu) << op << " " << ToString(d) << ": CUDA kernel " << cuda
                           << ", CPU kernel " << cpu;
      cuda_kernels += cuda;
    }
    EXPECT_GT(cuda_kernels, 0) << op;
  }
  for (DType d : every) {  // IndexSelect, OneHot: every dtype
    EXPECT_NE(r.MustFind("IndexSelect").FindKernel(DeviceType::kCUDA, d), nullptr) << ToString(d);
    EXPECT_NE(r.MustFind("OneHot").FindKernel(DeviceType::kCUDA, d), nullptr) << ToString(d);
  }
  for (DType d : floats) {
    EXPECT_NE(r.MustFind("CrossEntropy").FindKernel(DeviceType::kCUDA, d), nullptr) << ToString(d);
  }
}
#endif

}  // namespace
}  // namespace eagervm
