// ThreadBuffer: the events one thread recorded during a trace session.
//
// Single writer (the owning thread), single reader (the collector in
// StopTrace), no lock: events go into fixed chunks that are never moved, and
// the writer publishes how many are complete with a release store. The
// collector reads only that many. A buffer is reset lazily by its owner when
// it first records in a new session, so a session never sees a previous
// session's events. Chunks are kept for reuse until the thread exits.
#ifndef EAGERVM_PROFILER_THREAD_BUFFER_H_
#define EAGERVM_PROFILER_THREAD_BUFFER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "profiler/trace_event.h"

namespace eagervm::profiler {

class ThreadBuffer {
 public:
  // Per thread and session, to bound memory: later events are dropped (counted).
  static constexpr size_t kMaxEvents = size_t{1} << 20;

  ThreadBuffer(std::string name, int tid, int sort_index)
      : name_(std::move(name)), tid_(tid), sort_index_(sort_index) {}
  ~ThreadBuffer();
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  // Owner thread only.
  void Append(const TraceEvent& e, uint64_t session);
  // Owner thread only: a compute slice opens/closes. StopSession waits until
  // no thread has one open, so work that finished before it is in the trace.
  // The opening store is ordered before the instruction is marked done.
  void BeginCompute() {
    computing_.store(computing_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void EndCompute() {
    computing_.store(computing_.load(std::memory_order_relaxed) - 1, std::memory_order_release);
  }

  // Collector: calls fn(const TraceEvent&) for the events of `session`.
  template <typename Fn>
  void ForEach(uint64_t session, Fn&& fn) const;
  size_t dropped(uint64_t session) const;
  bool computing() const { return computing_.load(std::memory_order_acquire) != 0; }

  const std::string& name() const { return name_; }
  int tid() const { return tid_; }
  int sort_index() const { return sort_index_; }
  // Set once by the owner as it exits; afterwards only the collector touches it.
  void Retire() { retired_.store(true, std::memory_order_release); }
  bool retired() const { return retired_.load(std::memory_order_acquire); }

 private:
  static constexpr size_t kChunkEvents = 1024;
  struct Chunk {
    TraceEvent events[kChunkEvents];
    std::atomic<Chunk*> next{nullptr};
  };

  const std::string name_;
  const int tid_;
  const int sort_index_;
  Chunk head_;
  Chunk* write_chunk_ = &head_;  // owner only
  size_t write_pos_ = 0;         // owner only
  std::atomic<uint64_t> session_{0};
  std::atomic<size_t> count_{0};
  std::atomic<size_t> dropped_{0};
  std::atomic<int> computing_{0};
  std::atomic<bool> retired_{false};
};

template <typename Fn>
void ThreadBuffer::ForEach(uint64_t session, Fn&& fn) const {
  if (session_.load(std::memory_order_acquire) != session) return;
  const size_t n = count_.load(std::memory_order_acquire);
  const Chunk* c = &head_;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && i % kChunkEvents == 0) c = c->next.load(std::memory_order_acquire);
    fn(c->events[i % kChunkEvents]);
  }
}

}  // namespace eagervm::profiler

#endif  // EAGERVM_PROFILER_THREAD_BUFFER_H_
