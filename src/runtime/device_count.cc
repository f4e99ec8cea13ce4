// CudaDeviceCount() when the CUDA backend is not built: no CUDA device. (With
// the backend, src/device/cuda/cuda_device_count.cc asks the driver.)
#include "eagervm/device.h"

namespace eagervm {
#ifndef EAGERVM_WITH_CUDA
int CudaDeviceCount() { return 0; }
#endif
}  // namespace eagervm
