// The backend conformance suite (backend_conformance.h) on CUDA device 0.
// Skips without a GPU; scripts/gpu_check.sh runs it on the GPU machine.
#include "backend_conformance.h"
#include "configured_vm.h"

#ifdef EAGERVM_WITH_CUDA
#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>

#include "device/cuda/cuda_handles.h"
#include "device/cuda/scoped_device.h"
#include "kernels/cuda/launchers.h"
#endif

namespace eagervm::conformance {

namespace {
// The suite's memory limits (the allocator cases).
const auto* const kEnv =
    ::testing::AddGlobalTestEnvironment(new testing::ConfiguredVm([](VmOptions& o) {
      o.cpu_memory_limit = kConformanceMemoryLimit;
      o.cuda_memory_limit = kConformanceMemoryLimit;
    }));
}  // namespace

#ifdef EAGERVM_WITH_CUDA
namespace {
// ~kSlowMs at ~1.5-2 GHz.
constexpr int64_t kSlowCycles = int64_t{kSlowMs} * 1'500'000;

absl::Status FromCuda(cudaError_t e) {
  return e == cudaSuccess ? absl::OkStatus() : absl::InternalError(cudaGetErrorString(e));
}
}  // namespace

void RegisterDeviceTestKernels() {
  EXPECT_TRUE(RegisterKernel("ConfSlowFill", DeviceType::kCUDA, [](KernelContext& ctx) {
                const float value = static_cast<float>(std::get<double>(ctx.attrs().at("value")));
                return FromCuda(kernels::cuda::LaunchSpinThenFill(
                    ctx.mutable_input<float>(0), ctx.input_meta(0).shape.numel(), value,
                    kSlowCycles, static_cast<cudaStream_t>(ctx.cuda_stream())));
              }).ok());
  EXPECT_TRUE(RegisterKernel("ConfSlowCopy", DeviceType::kCUDA, [](KernelContext& ctx) {
                return FromCuda(kernels::cuda::LaunchSpinThenCopy(
                    ctx.output<float>(0), ctx.input<float>(0), ctx.input_meta(0).shape.numel(),
                    kSlowCycles, static_cast<cudaStream_t>(ctx.cuda_stream())));
              }).ok());
  EXPECT_TRUE(RegisterKernel("ConfFail", DeviceType::kCUDA, FailingKernel).ok());
}
#else
void RegisterDeviceTestKernels() {}
#endif

INSTANTIATE_TEST_SUITE_P(Cuda, BackendConformance,
                         ::testing::Values(Backend{"Cuda", Device::Cuda(0), true, true, false}),
                         BackendName);

}  // namespace eagervm::conformance

#ifdef EAGERVM_WITH_CUDA
// CUDA-only cases: what the device-generic API cannot express.
namespace eagervm::conformance {
namespace {

bool NoGpu() { return CudaDeviceCount() == 0; }

}  // namespace

// Steady state: after a warm-up, a long loop of small ops over two streams
// with periodic host reads creates (almost) no new CUDA events: events go
// back to the pool once their query completed.
TEST(CudaOnly, AsyncEventCountStaysBoundedInASteadyState) {
  if (NoGpu()) GTEST_SKIP() << "needs a CUDA GPU: CudaDeviceCount() is 0";
  const Device gpu = Device::Cuda(0);
  Tensor x = Full({256}, 1.0f, DType::kFloat32, gpu);
  auto loop = [&](int n) {
    for (int i = 0; i < n; ++i) {
      StreamScope scope(Stream(gpu, i % 2));
      x = ops::AddScalar(x, 1.0);
      if (i % 500 == 499) ASSERT_TRUE(x.Slice(0, 1).Reshape({}).Item<float>().ok());
    }
  };
  loop(2000);
  ASSERT_TRUE(Sync().ok());
  const int64_t before = device::cuda::CudaEventsCreated();
  loop(20000);
  ASSERT_TRUE(Sync().ok());
  EXPECT_LE(device::cuda::CudaEventsCreated() - before, 64) << "events are not reused";
  EXPECT_EQ(Floats(x.Slice(0, 1))[0], 22001.0f);
}

// Another library's CUDA-graph capture in global mode on a user thread,
// while eagervm's scheduler and event poller work on queued kernels: their
// calls must not invalidate it.
TEST(CudaOnly, AForeignGlobalModeCaptureSurvivesEagervmsThreads) {
  if (NoGpu()) GTEST_SKIP() << "needs a CUDA GPU: CudaDeviceCount() is 0";
  RegisterConformanceOps();
  const Device gpu = Device::Cuda(0);
  Tensor x = Zeros({4096}, DType::kFloat32, gpu);
  ASSERT_TRUE(x.Wait().ok());
  for (int i = 0; i < 4; ++i) {  // ~4 x kSlowMs of device work, polled
    ASSERT_TRUE(ops::Call("ConfSlowFill", {x}, {{"value", static_cast<double>(i)}}).ok());
    x = ops::AddScalar(x, 1.0);
  }
  cudaError_t end = cudaErrorUnknown;
  cudaGraph_t graph = nullptr;
  std::thread foreign([&] {
    cudaStream_t s = nullptr;
    void* buf = nullptr;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(&buf, 1 << 20) != cudaSuccess) {
      return;
    }
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess) {
      (void)cudaMemsetAsync(buf, 0, 1 << 20, s);
      std::this_thread::sleep_for(std::chrono::milliseconds(3 * kSlowMs));
      end = cudaStreamEndCapture(s, &graph);
    }
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaFree(buf);
    (void)cudaStreamDestroy(s);
    (void)cudaGetLastError();
  });
  foreign.join();
  EXPECT_EQ(end, cudaSuccess) << cudaGetErrorString(end);
  EXPECT_EQ(Floats(x)[4095], 4.0f);
  ASSERT_TRUE(Sync().ok());
}

// Work on cuda:1 only (from a fresh process) leaves no context on GPU 0.
TEST(CudaOnly, WorkOnTheSecondGpuCreatesNoContextOnTheFirst) {
  if (CudaDeviceCount() < 2) {
    GTEST_SKIP() << "needs two CUDA GPUs: CudaDeviceCount() is " << CudaDeviceCount();
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const Device g1 = Device::Cuda(1);
        Tensor y = ops::MulScalar(Full({1024}, 2.0f, DType::kFloat32, g1), 3.0);
        absl::StatusOr<std::vector<float>> v = y.ToVector<float>();
        if (!v.ok() || (*v)[1023] != 6.0f) std::_Exit(1);
        if (!Sync().ok()) std::_Exit(2);
        std::_Exit(device::cuda::PrimaryContextActive(0) ? 3 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace eagervm::conformance
#endif
