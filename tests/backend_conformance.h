// The backend conformance suite: one set of tests written against the
// device-generic API (ops, copies, host access, streams, errors, graphs),
// instantiated per backend: the CPU and the fake accelerator
// (backend_conformance_test.cc, every CI build) and CUDA
// (cuda_conformance_test.cc, skips without a GPU; scripts/gpu_check.sh runs
// it). Every device result is checked against the CPU's.
#ifndef EAGERVM_TESTS_BACKEND_CONFORMANCE_H_
#define EAGERVM_TESTS_BACKEND_CONFORMANCE_H_

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "eagervm/eagervm.h"

namespace eagervm::conformance {

struct Backend {
  std::string name;  // the instance's name in test names
  Device device;
  bool needs_gpu = false;  // skip when CudaDeviceCount() == 0
};

inline void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

class BackendConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override;
  Device dev() const { return GetParam().device; }
};

inline std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param.name;
}

// The suite's test ops, registered once (the CPU kernels here, the kCUDA
// ones by RegisterDeviceTestKernels):
//  ConfSlowFill(x, value): sleeps / spins ~kSlowMs, then x[:] = value (in place);
//  ConfSlowCopy(x) -> y: sleeps / spins ~kSlowMs, then y = x (a slow reader);
//  ConfFail(x) -> y: the kernel fails (y carries the error).
// float32 only.
inline constexpr int kSlowMs = 30;
void RegisterConformanceOps();

// Defined by each test binary: the kCUDA kernels of the ops above (host code
// for the fake accelerator, whose memory is host memory; device code on a
// GPU). Called once by RegisterConformanceOps().
void RegisterDeviceTestKernels();

// Host kernels of the test ops (the CPU's, and the fake accelerator's).
absl::Status HostSlowFill(KernelContext& ctx);
absl::Status HostSlowCopy(KernelContext& ctx);
absl::Status FailingKernel(KernelContext& ctx);

}  // namespace eagervm::conformance

#endif  // EAGERVM_TESTS_BACKEND_CONFORMANCE_H_
