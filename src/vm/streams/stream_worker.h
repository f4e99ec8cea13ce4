// StreamWorker: the worker thread of one stream (VmImpl creates one per stream
// whose policy does not run on the scheduler). The scheduler hands it
// dispatched instructions; it runs them in order and tells the scheduler
// when one finishes, if that can unblock something, and after each batch
// (vm/streams/completion_signal.h). It spins for a bounded window after work, then parks (no
// busy loop while idle).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_STREAMS_STREAM_WORKER_H_
#define EAGERVM_VM_STREAMS_STREAM_WORKER_H_

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/notifier.h"
#include "vm/engine/instruction.h"
#include "vm/streams/completion_signal.h"

namespace eagervm::vm {

class StreamWorker {
 public:
  // `on_done` hears of each instruction the worker has run.
  StreamWorker(std::string name, CompletionSignal* on_done, int64_t spin_ns);
  ~StreamWorker();  // Close()s and joins
  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  // Scheduler thread: queues `batch` (in order) and clears it; wakes the
  // worker on empty->non-empty.
  void Enqueue(std::vector<Instruction*>* batch);
  // Finishes queued work, then stops the thread.
  void Close();
  uint64_t wakeups() const { return wakeups_.load(std::memory_order_relaxed); }

 private:
  void Loop();

  std::string name_;
  CompletionSignal* on_done_;
  int64_t spin_ns_;
  base::Notifier notifier_;
  base::Mutex mu_;
  std::vector<Instruction*> queue_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> wakeups_{0};
  std::thread thread_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAMS_STREAM_WORKER_H_
