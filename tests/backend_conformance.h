// The backend conformance suite: one set of tests written against the
// device-generic API (ops, copies, host access, streams, errors, graphs),
// instantiated per backend: the CPU and the fake accelerator
// (backend_conformance_test.cc, every CI build) and CUDA
// (cuda_conformance_test.cc, skips without a GPU; scripts/gpu_check.sh runs
// it). Every device result is checked against the CPU's. The cases:
// backend_conformance.cc (built-in ops on views, copies, host access,
// cross-stream ordering, errors, graph replay, overlapping views),
// backend_conformance_ops.cc (every op family and dtype on compact, offset
// and strided inputs), backend_conformance_system.cc (allocator, errors at
// every host entry point, graph view/aliased inputs and the device-graph
// path, kernel limits, DLPack).
#ifndef EAGERVM_TESTS_BACKEND_CONFORMANCE_H_
#define EAGERVM_TESTS_BACKEND_CONFORMANCE_H_

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "eagervm/eagervm.h"
#include "eagervm/instructions_builder.h"

namespace eagervm::conformance {

struct Backend {
  std::string name;  // the instance's name in test names
  Device device;
  bool needs_gpu = false;  // skip when CudaDeviceCount() == 0
  // Graph::Run replays a device segment as one recorded device graph
  // (GraphOptions::device_graphs): CUDA graphs on a GPU.
  bool device_graphs = false;
  // Its allocator reports cache hits, and OOM recoveries and failures
  // against the memory limit (the CPU's and the fake's caching allocators;
  // CUDA's stream-ordered pool caches inside the driver).
  bool reports_cache = true;
};

// The memory limit the suite's binaries configure, for the CPU
// (VmOptions::cpu_memory_limit) and the backend (cuda_memory_limit).
inline constexpr int64_t kConformanceMemoryLimit = int64_t{128} << 20;

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
//  ConfFail(x) -> y: the kernel fails (y carries the error);
//  ConfCpuOnly(x) -> y: y = x, a CPU kernel only (no device has one).
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

// Helpers of the suite's test files.
// t's values (on any device), as float32 / float64.
std::vector<float> Floats(const Tensor& t);
std::vector<double> AsDoubles(const Tensor& t);
// got (from the backend) equals want (from the CPU): shape, dtype, values
// within rel_tol * max(1, |want|); NaN matches NaN. A fatal failure if not.
void ExpectNear(const Tensor& got, const Tensor& want, const std::string& what,
                double rel_tol = 1e-5);
std::vector<float> RandomFloats(std::mt19937& rng, int64_t n, float lo, float hi);
// Inputs on the CPU and the same values on the backend, contiguous or as a
// view (rows 1..rows+1 of a larger storage: an offset, and a storage larger
// than the tensor).
struct Pair {
  Tensor cpu, dev;
};
Pair MakeInput(std::mt19937& rng, Shape shape, bool view, Device dev, float lo = -2, float hi = 2);
// The same values as a [rows, cols] tensor of `dtype`, three ways: compact,
// rows 1..rows+1 of a larger storage (an offset), and the transpose of a
// compact [cols, rows] storage (strided). Built on the CPU (uniform in
// [lo, hi), then cast), copied whole to the backend, the view taken on both
// sides.
struct Variant {
  std::string name;  // "contiguous", "offset view", "strided"
  Pair in;
};
std::vector<Variant> Variants(std::mt19937& rng, int64_t rows, int64_t cols, DType dtype,
                              Device dev, float lo = -2, float hi = 2);
// n integer labels in [0, classes) as int64 [n], on the CPU and the backend.
Pair Labels(std::mt19937& rng, int64_t n, int64_t classes, Device dev);
// Named ops for the cases to run over their inputs.
using UnaryOp = std::function<Tensor(const Tensor&)>;
using BinaryOp = std::function<Tensor(const Tensor&, const Tensor&)>;
using NamedUnaryOps = std::vector<std::pair<std::string, UnaryOp>>;
using NamedBinaryOps = std::vector<std::pair<std::string, BinaryOp>>;
// Unary ops and reductions of any numeric dtype: Neg, Abs, Relu, AddScalar,
// MulScalar, Sum, Max (all, per axis), Contiguous.
const NamedUnaryOps& NumericUnaryOps();
// Binary ops of any numeric dtype: Add, Sub, Mul, Maximum, Minimum, the six
// comparisons, Where.
const NamedBinaryOps& NumericBinaryOps();
// A host callback on t (AccessBlobByCallback in one PhysicalRun).
absl::Status Access(const Tensor& t, vm::AccessMode mode, std::function<void(void*, size_t)> cb);

// The ops a backend has no kernel for: such an op refuses at the call with
// Unimplemented ("<op>: no cuda kernel for dtype ..."). A case notes them and
// goes on checking the others; it then ends skipped, naming them
// (CONFORMANCE_SKIP_IF_LACKING). Any other error is a failure (the
// comparison reports it).
class Lacking {
 public:
  // True, and noted under `op`, if `t` is an Unimplemented refusal.
  bool operator()(const Tensor& t, const std::string& op);
  bool empty() const { return ops_.empty(); }
  std::string ToString() const;  // "op (its status); ..."

 private:
  std::map<std::string, std::string> ops_;
};
#define CONFORMANCE_SKIP_IF_LACKING(lacking)                                     \
  do {                                                                           \
    if (!(lacking).empty()) {                                                    \
      GTEST_SKIP() << "the backend lacks (Unimplemented at the call), the rest " \
                      "checked: "                                                \
                   << (lacking).ToString();                                      \
    }                                                                            \
  } while (0)
// Compares unless the backend lacks `op` (then notes it).
void Check(Lacking& lacking, const std::string& op, const std::string& how, const Tensor& got,
           const Tensor& want, double rel_tol = 1e-5);

}  // namespace eagervm::conformance

#endif  // EAGERVM_TESTS_BACKEND_CONFORMANCE_H_
