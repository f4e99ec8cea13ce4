// Tracer: the process-wide trace session and the recording calls the VM's
// hooks use. When no session is active every hook costs one relaxed atomic
// load and a branch. When one is, events go to the calling thread's own
// ThreadBuffer without a lock.
#ifndef EAGERVM_PROFILER_TRACER_H_
#define EAGERVM_PROFILER_TRACER_H_

#include <atomic>
#include <cstdint>

#include "absl/status/status.h"
#include "profiler/thread_buffer.h"
#include "profiler/trace_sink.h"

namespace eagervm::profiler {

namespace internal {
extern std::atomic<bool> g_enabled;
}  // namespace internal

// Any thread. True while a session records. Relaxed: a hook racing with
// Start/Stop may record or miss one event; the collector copes with both.
inline bool Enabled() { return internal::g_enabled.load(std::memory_order_relaxed); }

int64_t NowNs();  // steady clock

// The calling thread's buffer, created (and named after the thread's role and
// pthread name) on first use; nullptr while the thread is exiting.
ThreadBuffer* CurrentThreadBuffer();

// Any thread; no-ops when no session is active.
void EmitSlice(const char* category, const char* name, int64_t start_ns, int64_t end_ns,
               int64_t arg = -1);
void EmitCounter(const char* name, int64_t value);

// Records [construction, destruction) as a slice on this thread's row.
class ScopedSlice {
 public:
  ScopedSlice(const char* category, const char* name)
      : category_(category), name_(Enabled() ? name : nullptr) {
    if (name_ != nullptr) start_ns_ = NowNs();
  }
  ~ScopedSlice() {
    if (name_ != nullptr) EmitSlice(category_, name_, start_ns_, NowNs(), arg_);
  }
  ScopedSlice(const ScopedSlice&) = delete;
  ScopedSlice& operator=(const ScopedSlice&) = delete;
  void set_arg(int64_t n) { arg_ = n; }

 private:
  const char* category_;
  const char* name_;
  int64_t start_ns_ = 0;
  int64_t arg_ = -1;
};

// Session control; any thread, serialised internally.
// FailedPrecondition if a session is already active.
[[nodiscard]] absl::Status StartSession();
// Stops recording, waits for compute slices that are open on VM threads (so
// work finished before the call is complete in the trace), and hands every
// thread's events to `sink`. FailedPrecondition if no session is active.
[[nodiscard]] absl::Status StopSession(TraceSink* sink);
bool SessionActive();

}  // namespace eagervm::profiler

#endif  // EAGERVM_PROFILER_TRACER_H_
