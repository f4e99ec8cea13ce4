// EventPoller: wakes the scheduler when CUDA work it waits for completes.
//
// The scheduler only runs a pass when notified, and CUDA completion notifies
// nobody. While a CUDA stream has an event the scheduler is waiting for, this
// thread polls it (cudaEventQuery: busy for a short window, then with sleeps
// of 1/16 of the time waited so far, 10 us to 1 ms) and notifies the scheduler once it completes.
// With nothing watched it parks on a condition variable, so an idle VM, or one with no CUDA work,
// keeps every thread asleep.
//
// Why a thread and not cudaLaunchHostFunc: a host callback costs ~100 us
// (PEERS.md) and runs on a driver thread; a poll is ~0.5 us.
#ifndef EAGERVM_DEVICE_CUDA_EVENT_POLLER_H_
#define EAGERVM_DEVICE_CUDA_EVENT_POLLER_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/notifier.h"

namespace eagervm::device::cuda {

class EventPoller {
 public:
  // `scheduler` is notified after events complete. `spin_ns`: busy-poll window.
  EventPoller(base::Notifier* scheduler, int64_t spin_ns);
  ~EventPoller();  // Stop()
  // Stops and joins the thread (VM shutdown: before the CUDA runtime unloads
  // at exit). Idempotent; any thread but the poller's. Later Watch()es are
  // never polled (nothing runs after shutdown).
  void Stop();
  EventPoller(const EventPoller&) = delete;
  EventPoller& operator=(const EventPoller&) = delete;

  // Any thread: notify the scheduler once the current record of `e` has
  // completed (or failed). `e` must stay valid until then; watching an event
  // that is re-recorded meanwhile only delays the (idempotent) notification.
  void Watch(cudaEvent_t e);
  uint64_t notifications() const { return notifications_; }

 private:
  void Loop();

  base::Notifier* scheduler_;
  const int64_t spin_ns_;
  base::Mutex mu_;
  base::CondVar cv_;
  std::vector<cudaEvent_t> incoming_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  base::Mutex join_mu_;         // serialises Stop()s: one joins
  uint64_t notifications_ = 0;  // poller thread only (read for stats)
  std::thread thread_;
};

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_EVENT_POLLER_H_
