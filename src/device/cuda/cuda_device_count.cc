// CudaDeviceCount() for builds with the CUDA backend. Without a driver or GPU
// cudaGetDeviceCount fails and leaves its output unwritten: the
// count starts at 0 and any error means "no device". Nothing is logged.
#include <cuda_runtime_api.h>

#include "eagervm/device.h"

namespace eagervm {

int CudaDeviceCount() {
  // Computed once: the answer cannot change within a process, and callers
  // (every CUDA stream lookup) must not pay a driver call each time.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();  // leave no error behind for user code
      return 0;
    }
    return n < 0 ? 0 : n;
  }();
  return count;
}

}  // namespace eagervm
