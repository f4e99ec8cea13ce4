// The calling thread's current CUDA device, cached: the scheduler thread
// launches for every device, and cudaSetDevice on each launch would add a
// driver call per op.
#ifndef EAGERVM_DEVICE_CUDA_CURRENT_DEVICE_H_
#define EAGERVM_DEVICE_CUDA_CURRENT_DEVICE_H_

#include "absl/status/status.h"

namespace eagervm::device::cuda {

// Makes `device` current on this thread (no driver call if it already is,
// as far as eagervm set it). Code that changes the device behind eagervm's
// back on a VM thread must restore it.
absl::Status SetCurrentDevice(int device);

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_CURRENT_DEVICE_H_
