// The backend conformance suite (backend_conformance.h) on CUDA device 0.
// Skips without a GPU; scripts/gpu_check.sh runs it on the GPU machine.
#include "backend_conformance.h"
#include "configured_vm.h"

#ifdef EAGERVM_WITH_CUDA
#include <cuda_runtime_api.h>

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
