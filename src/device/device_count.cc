#include "eagervm/device.h"

namespace eagervm {
#ifndef EAGERVM_WITH_CUDA
int CudaDeviceCount() { return 0; }
#endif
}  // namespace eagervm
