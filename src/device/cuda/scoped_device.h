// ScopedDevice: makes a CUDA device current for a scope and restores the
// caller's device at its end. Used wherever the backend touches a device on
// a thread it does not own (a user thread creating a stream, EmptyCache) or
// creates a per-device object (events, streams) whose device must be the
// stream's, not whatever the thread happened to have current.
//
// Thread-compatible: a stack object of one thread. Construction costs one
// cudaGetDevice (and a cudaSetDevice only when the device differs); errors
// are kept in status() rather than thrown.
#ifndef EAGERVM_DEVICE_CUDA_SCOPED_DEVICE_H_
#define EAGERVM_DEVICE_CUDA_SCOPED_DEVICE_H_

#include "absl/status/status.h"

namespace eagervm::device::cuda {

class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

  // OK if `device` is current inside the scope.
  const absl::Status& status() const { return status_; }

 private:
  int previous_ = -1;  // -1: nothing to restore
  absl::Status status_;
};

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_SCOPED_DEVICE_H_
