// The backend conformance suite (backend_conformance.h) on the CPU and on the
// fake accelerator (tests/fake_device.h: asynchronous device threads, fake
// events, a poisoning allocator; the CPU kernels run on it), in every build.
#include "backend_conformance.h"

#include <cstdlib>

#include "configured_vm.h"
#include "fake_device.h"

namespace eagervm::conformance {

namespace {
const bool kInstalled = testing::InstallFakeAccelerator();
// Three CPU streams: the three-stream ordering case on the CPU. The suite's
// memory limits (the allocator cases).
const auto* const kEnv =
    ::testing::AddGlobalTestEnvironment(new testing::ConfiguredVm([](VmOptions& o) {
      o.cpu_streams = 3;
      o.cpu_memory_limit = kConformanceMemoryLimit;
      o.cuda_memory_limit = kConformanceMemoryLimit;
    }));
// Under mpirun (backend_conformance_mpi_np2): join the job, so the
// collectives case runs; alone, it skips.
class DistributedEnv : public ::testing::Environment {
 public:
  void SetUp() override {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return;
    absl::Status s = InitDistributed();
    EXPECT_TRUE(s.ok()) << s;
  }
};
const auto* const kDistributed = ::testing::AddGlobalTestEnvironment(new DistributedEnv);
}  // namespace

void RegisterDeviceTestKernels() {
  EXPECT_TRUE(kInstalled);
  EXPECT_TRUE(RegisterKernel("ConfSlowFill", DeviceType::kCUDA, HostSlowFill).ok());
  EXPECT_TRUE(RegisterKernel("ConfSlowCopy", DeviceType::kCUDA, HostSlowCopy).ok());
  EXPECT_TRUE(RegisterKernel("ConfFail", DeviceType::kCUDA, FailingKernel).ok());
}

INSTANTIATE_TEST_SUITE_P(Cpu, BackendConformance,
                         ::testing::Values(Backend{"Cpu", Device::Cpu(), false, false, true}),
                         BackendName);
INSTANTIATE_TEST_SUITE_P(Fake, BackendConformance,
                         ::testing::Values(Backend{"Fake", testing::kFake, false, false, true}),
                         BackendName);

}  // namespace eagervm::conformance
