// CUDA graphs for graph mode's replay: a stream capture (thread-local mode,
// so the scheduler may keep querying other streams' events), instantiated
// once and launched with cudaGraphLaunch on the captured stream.
#include <cuda_runtime.h>

#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"

namespace eagervm::device::cuda {
namespace {

class CudaDeviceGraph final : public vm::DeviceGraph {
 public:
  CudaDeviceGraph(cudaGraphExec_t exec, cudaStream_t stream) : exec_(exec), stream_(stream) {}
  ~CudaDeviceGraph() override { (void)cudaGraphExecDestroy(exec_); }
  CudaDeviceGraph(const CudaDeviceGraph&) = delete;
  CudaDeviceGraph& operator=(const CudaDeviceGraph&) = delete;

  absl::Status Launch() override {
    return CudaStatus(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch");
  }

 private:
  cudaGraphExec_t exec_;
  cudaStream_t stream_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<vm::DeviceGraph>> CudaStreamPolicy::CaptureGraph(
    absl::FunctionRef<absl::Status()> body) {
  cudaStream_t s = stream_.get();
  // The scheduler thread runs in Relaxed mode (PrepareVmOwnedCudaThread);
  // its own capture gets ThreadLocal checks back: an unsafe call in the body
  // fails the capture instead of slipping into it.
  struct ThreadCaptureMode {
    cudaStreamCaptureMode saved = cudaStreamCaptureModeThreadLocal;
    ThreadCaptureMode() { (void)cudaThreadExchangeStreamCaptureMode(&saved); }
    ~ThreadCaptureMode() { (void)cudaThreadExchangeStreamCaptureMode(&saved); }
  } thread_mode;
  absl::Status begin = CudaStatus(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal),
                                  "cudaStreamBeginCapture");
  if (!begin.ok()) return begin;
  absl::Status recorded = body();
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(s, &graph);
  if (!recorded.ok() || end != cudaSuccess) {
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();  // clear the error, or the next CUDA call reports it
    return recorded.ok() ? CudaStatus(end, "cudaStreamEndCapture") : recorded;
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t inst =
      cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch);
  (void)cudaGraphDestroy(graph);
  if (inst != cudaSuccess) {
    (void)cudaGetLastError();
    return CudaStatus(inst, "cudaGraphInstantiate");
  }
  return std::unique_ptr<vm::DeviceGraph>(new CudaDeviceGraph(exec, s));
}

absl::Status CudaStreamPolicy::CopyOnDevice(void* dst, const void* src, size_t bytes) {
  return CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_.get()),
                    "cudaMemcpyAsync");
}

absl::Status CudaStreamPolicy::CopyFromHost(void* dst, const void* src, size_t bytes) {
  return CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_.get()),
                    "cudaMemcpyAsync (host to device)");
}

}  // namespace eagervm::device::cuda
