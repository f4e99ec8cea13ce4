#include "vm/streams/stream_worker.h"

#include <pthread.h>

#include "base/thread_role.h"
#include "vm/diagnostics/trace_hooks.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::vm {

StreamWorker::StreamWorker(std::string name, CompletionSignal* on_done, int64_t spin_ns)
    : name_(std::move(name)), on_done_(on_done), spin_ns_(spin_ns) {
  thread_ = std::thread([this] { Loop(); });
}

StreamWorker::~StreamWorker() { Close(); }

void StreamWorker::Close() {
  if (!thread_.joinable()) return;
  notifier_.Close();
  thread_.join();
}

void StreamWorker::Enqueue(std::vector<Instruction*>* batch) {
  EAGERVM_DCHECK_THREAD_ROLE(kScheduler);
  bool was_empty;
  {
    base::MutexLock lock(&mu_);
    was_empty = queue_.empty();
    queue_.insert(queue_.end(), batch->begin(), batch->end());
  }
  batch->clear();
  if (was_empty) notifier_.Notify();
}

void StreamWorker::Loop() {
  base::SetCurrentThreadRole(base::ThreadRole::kWorker);
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  std::vector<Instruction*> batch;
  for (;;) {
    bool parked = false;
    const bool open = notifier_.Wait(spin_ns_, &parked);
    if (parked) wakeups_.fetch_add(1, std::memory_order_relaxed);
    for (;;) {
      {
        base::MutexLock lock(&mu_);
        batch.swap(queue_);
      }
      if (batch.empty()) break;
      for (size_t k = 0; k < batch.size(); ++k) {
        Instruction* instr = batch[k];
        VmStream* stream = instr->stream();
        {
          ComputeSlice trace(instr);
          stream->policy()->Run(stream, instr);
        }
        // At once if a cross-stream successor, a barrier or a back-pressured
        // thread may wait for exactly this one; else after the batch.
        on_done_->Finished(/*more=*/k + 1 < batch.size());
      }
      batch.clear();
    }
    if (!open) return;
  }
}

}  // namespace eagervm::vm
