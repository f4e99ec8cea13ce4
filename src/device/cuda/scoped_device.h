// ScopedDevice: makes a CUDA device current for a scope. Used wherever the
// backend touches a device on a thread it does not own (a user thread
// creating a stream, EmptyCache) or creates a per-device object (events,
// streams) whose device must be the stream's, not whatever the thread
// happened to have current.
//
// At the end of the scope:
//  - on a thread the VM owns (base::IsVmOwnedThread(): the scheduler, the
//    event poller) nothing is restored: nobody else uses its current device;
//  - on a user thread the previous device is restored only if its primary
//    context is active (the user, or a library, used that device on this
//    thread or another). Restoring a device nobody initialised would create
//    its context (cudaSetDevice does since CUDA 12): every process running
//    on cuda:1 would then hold a context on GPU 0 too. A thread that never
//    chose a device is therefore left on the scope's device.
//
// Thread-compatible: a stack object of one thread. Construction costs one
// cudaGetDevice (and a cudaSetDevice only when the device differs, plus a
// primary-context query on user threads); errors are kept in status() rather
// than thrown.
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

// True unless the driver says the primary context of runtime device
// `device` is inactive (asked through cudaGetDriverEntryPointByVersion, so
// nothing links libcuda; without a driver the answer is true). Any thread.
bool PrimaryContextActive(int device);

// Once per thread, on threads the VM owns (the scheduler thread at its first
// CUDA Run(), the event poller at its start): switches the thread's stream
// capture mode to cudaStreamCaptureModeRelaxed, so its event queries,
// allocations and synchronisations never invalidate a CUDA-graph capture
// another library runs on its own thread in Global mode. eagervm's own
// captures switch back to ThreadLocal for their duration
// (CudaStreamPolicy::CaptureGraph). A no-op on other threads.
void PrepareVmOwnedCudaThread();

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_SCOPED_DEVICE_H_
