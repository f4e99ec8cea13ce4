#include "profiler/thread_buffer.h"

namespace eagervm::profiler {

ThreadBuffer::~ThreadBuffer() {
  Chunk* c = head_.next.load(std::memory_order_acquire);
  while (c != nullptr) {
    Chunk* next = c->next.load(std::memory_order_relaxed);
    delete c;
    c = next;
  }
}

void ThreadBuffer::Append(const TraceEvent& e, uint64_t session) {
  size_t n = count_.load(std::memory_order_relaxed);
  if (session_.load(std::memory_order_relaxed) != session) {
    // First event of a new session. count_ is reset before session_ is
    // published, so a collector that sees the new session sees count 0 or more.
    n = 0;
    count_.store(0, std::memory_order_relaxed);
    dropped_.store(0, std::memory_order_relaxed);
    write_chunk_ = &head_;
    write_pos_ = 0;
    session_.store(session, std::memory_order_release);
  }
  if (n >= kMaxEvents) {
    dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return;
  }
  if (write_pos_ == kChunkEvents) {
    Chunk* next = write_chunk_->next.load(std::memory_order_relaxed);
    if (next == nullptr) {
      next = new Chunk;
      write_chunk_->next.store(next, std::memory_order_release);
    }
    write_chunk_ = next;
    write_pos_ = 0;
  }
  write_chunk_->events[write_pos_++] = e;
  count_.store(n + 1, std::memory_order_release);
}

size_t ThreadBuffer::dropped(uint64_t session) const {
  if (session_.load(std::memory_order_acquire) != session) return 0;
  return dropped_.load(std::memory_order_relaxed);
}

}  // namespace eagervm::profiler
