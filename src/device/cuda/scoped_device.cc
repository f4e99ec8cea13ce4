#include "device/cuda/scoped_device.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "base/thread_role.h"
#include "device/cuda/cuda_status.h"

namespace eagervm::device::cuda {
namespace {

struct DriverEntryPoints {
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*primary_ctx_get_state)(CUdevice, unsigned int*, int*) = nullptr;
};

const DriverEntryPoints& Driver() {
  static const DriverEntryPoints entry_points = [] {
    DriverEntryPoints d;
    auto get = [](const char* name, void** fn) {
      cudaDriverEntryPointQueryResult found{};
      if (cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &found) !=
              cudaSuccess ||
          found != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError();
        *fn = nullptr;
      }
    };
    void* fn = nullptr;
    get("cuDeviceGet", &fn);
    d.device_get = reinterpret_cast<decltype(d.device_get)>(fn);
    get("cuDevicePrimaryCtxGetState", &fn);
    d.primary_ctx_get_state = reinterpret_cast<decltype(d.primary_ctx_get_state)>(fn);
    return d;
  }();
  return entry_points;
}

}  // namespace

bool PrimaryContextActive(int device) {
  const DriverEntryPoints& d = Driver();
  if (d.device_get == nullptr || d.primary_ctx_get_state == nullptr) return true;
  CUdevice dev{};
  if (d.device_get(&dev, device) != CUDA_SUCCESS) return true;
  unsigned int flags = 0;
  int active = 1;
  if (d.primary_ctx_get_state(dev, &flags, &active) != CUDA_SUCCESS) return true;
  return active != 0;
}

void PrepareVmOwnedCudaThread() {
  thread_local bool prepared = false;
  if (prepared || !base::IsVmOwnedThread()) return;
  prepared = true;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) (void)cudaGetLastError();
}

ScopedDevice::ScopedDevice(int device) {
  int current = -1;
  cudaError_t e = cudaGetDevice(&current);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    current = -1;
  }
  if (current == device) return;
  e = cudaSetDevice(device);
  if (e != cudaSuccess) {
    status_ = CudaStatus(e, "cudaSetDevice");
    return;
  }
  if (current < 0 || base::IsVmOwnedThread()) return;
  // Asked before leaving: by then `device`'s context exists, `current`'s
  // state is what the thread (or the process) made of it.
  if (PrimaryContextActive(current)) previous_ = current;
}

ScopedDevice::~ScopedDevice() {
  if (previous_ < 0) return;
  if (cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace eagervm::device::cuda
