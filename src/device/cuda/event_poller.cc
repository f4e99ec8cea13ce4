#include "device/cuda/event_poller.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>

#include "base/spin.h"
#include "base/thread_role.h"
#include "device/cuda/scoped_device.h"

namespace eagervm::device::cuda {
namespace {
constexpr int64_t kMinSleepNs = 10'000;
constexpr int64_t kMaxSleepNs = 1'000'000;
constexpr int64_t kSleepFraction = 16;
}  // namespace

EventPoller::EventPoller(base::Notifier* scheduler, int64_t spin_ns)
    : scheduler_(scheduler), spin_ns_(spin_ns) {
  thread_ = std::thread([this] { Loop(); });
}

EventPoller::~EventPoller() { Stop(); }

void EventPoller::Stop() {
  base::MutexLock join_lock(&join_mu_);
  {
    base::MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.NotifyOne();
  if (thread_.joinable()) thread_.join();
}

void EventPoller::Watch(cudaEvent_t e) {
  bool was_empty;
  {
    base::MutexLock lock(&mu_);
    was_empty = incoming_.empty();
    incoming_.push_back(e);
  }
  if (was_empty) cv_.NotifyOne();
}

void EventPoller::Loop() {
  base::SetCurrentThreadRole(base::ThreadRole::kWorker);
  base::MarkVmOwnedThread();
  PrepareVmOwnedCudaThread();  // its event queries must not break others' captures
  pthread_setname_np(pthread_self(), "evm-cuda-poll");
  // Each watch with the time it began: the youngest decides between spinning
  // and sleeping. Work launched just now may finish any moment; work waited
  // on for long (a long kernel) gets sleeps proportional to its age, even
  // while other streams keep adding short-lived watches (one reset timer for
  // all would keep the poller spinning for as long as the long kernel runs).
  struct Watch {
    cudaEvent_t event;
    int64_t since;
  };
  std::vector<Watch> watched;
  for (;;) {
    {
      base::MutexLock lock(&mu_);
      if (watched.empty()) {
        while (!stop_ && incoming_.empty()) cv_.Wait(&mu_);
      }
      if (stop_) return;
      if (!incoming_.empty()) {
        const int64_t now = base::NowNanos();
        for (cudaEvent_t e : incoming_) watched.push_back(Watch{e, now});
        incoming_.clear();
      }
    }
    // cudaEventQuery is not cudaErrorNotReady once the record completed; an
    // error (device fault, runtime unloading) also ends the watch: the
    // scheduler's own query turns it into a status, and nothing may hang.
    const size_t before = watched.size();
    watched.erase(
        std::remove_if(watched.begin(), watched.end(),
                       [](const Watch& w) { return cudaEventQuery(w.event) != cudaErrorNotReady; }),
        watched.end());
    if (watched.size() != before) {
      ++notifications_;
      scheduler_->Notify();
      continue;
    }
    if (watched.empty()) continue;
    const int64_t now = base::NowNanos();
    int64_t youngest = watched.front().since;
    for (const Watch& w : watched) youngest = std::max(youngest, w.since);
    const int64_t waited = now - youngest;
    if (waited < spin_ns_) {
      for (int i = 0; i < 32; ++i) base::CpuRelax();
      continue;
    }
    // Long-running device work: sleep, so a minute-long kernel costs no core.
    // Each sleep is 1/kSleepFraction of the time waited so far (at least
    // 10 us, at most 1 ms): completion is then seen at most ~6 % (plus 10 us)
    // after it happened, for a few wake-ups per kernel (one cudaEventQuery
    // per watched event each). The earlier doubling back-off reached 1 ms
    // sleeps after ~2 ms of waiting, i.e. up to ~50 % late for kernels of
    // 0.1-2 ms. (A blocking cudaEventSynchronize per event would need a
    // thread per watched event, or blocking-sync events, which cost more per
    // record; a cudaLaunchHostFunc per record costs a driver callback per
    // event: both rejected for the common, short-kernel case.)
    const int64_t sleep_ns = std::clamp(waited / kSleepFraction, kMinSleepNs, kMaxSleepNs);
    {
      base::MutexLock lock(&mu_);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(sleep_ns);
      while (!stop_ && incoming_.empty()) {
        if (cv_.WaitWithDeadline(&mu_, deadline)) break;
      }
    }
  }
}

}  // namespace eagervm::device::cuda
