// Makes a device current on a VM-owned thread (the scheduler, before it
// launches for a stream). Not cached: the current device is read back each
// time (cudaGetDevice reads runtime thread state, no driver call), so a user
// callback or library that changes the device on a VM thread cannot make a
// later launch land on the wrong device. User threads use ScopedDevice,
// which restores the caller's device.
#ifndef EAGERVM_DEVICE_CUDA_CURRENT_DEVICE_H_
#define EAGERVM_DEVICE_CUDA_CURRENT_DEVICE_H_

#include "absl/status/status.h"

namespace eagervm::device::cuda {

// Makes `device` current on this thread (cudaSetDevice only if it is not).
absl::Status SetCurrentDevice(int device);

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_CURRENT_DEVICE_H_
