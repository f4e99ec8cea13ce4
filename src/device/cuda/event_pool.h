// EventPool: the events of one CUDA stream, recycled. An event goes back to
// the pool only after its last record completed, so a cudaStreamWaitEvent
// issued on it earlier keeps waiting for the right point (CUDA captures the
// record at the time of the wait call).
//
// Events are created on the pool's device (the stream's), whatever device the
// calling thread has current: cudaEventRecord needs the event and the stream
// on one device.
//
// Thread-compatible: owned by one stream policy, used on the scheduler thread.
#ifndef EAGERVM_DEVICE_CUDA_EVENT_POOL_H_
#define EAGERVM_DEVICE_CUDA_EVENT_POOL_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "device/cuda/cuda_handles.h"
#include "device/cuda/scoped_device.h"

namespace eagervm::device::cuda {

class EventPool {
 public:
  explicit EventPool(int device) : device_(device) {}
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // An event from the pool, or a new one. The pool keeps ownership.
  absl::StatusOr<cudaEvent_t> Get() {
    if (!free_.empty()) {
      cudaEvent_t e = free_.back();
      free_.pop_back();
      return e;
    }
    ScopedDevice on(device_);
    if (!on.status().ok()) return on.status();
    absl::StatusOr<CudaEvent> e = CudaEvent::Create();
    if (!e.ok()) return e.status();
    all_.push_back(std::move(e).value());
    return all_.back().get();
  }
  // `e` (from Get) has completed its last record.
  void Put(cudaEvent_t e) { free_.push_back(e); }
  size_t created() const { return all_.size(); }

 private:
  const int device_;
  std::vector<CudaEvent> all_;
  std::vector<cudaEvent_t> free_;
};

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_EVENT_POOL_H_
