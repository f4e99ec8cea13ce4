// TraceSink: where a finished trace session goes. The collector hands a sink
// every thread that recorded something, then its events, then Finish().
// The Chrome/Perfetto JSON writer is the one sink eagervm has; the interface is
// internal (not in include/), so only eagervm's own code and tests can add
// another (Taskflow's observer and TFRT's tracing sink follow the same shape).
#ifndef EAGERVM_PROFILER_TRACE_SINK_H_
#define EAGERVM_PROFILER_TRACE_SINK_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "profiler/trace_event.h"

namespace eagervm::profiler {

struct ThreadInfo {
  int tid;         // small, unique per trace session
  int sort_index;  // scheduler first, then stream workers, then user threads
  std::string_view name;
};

struct SessionInfo {
  int64_t start_ns;  // steady clock at StartTrace; no event is earlier
  int64_t end_ns;    // steady clock at StopTrace
};

// Called by the collector only, on the thread that stops the trace, in order:
// Begin(); OnThread(t) before t's events; Finish() last. A thread's events
// arrive in the order it recorded them (a slice when it ends).
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Begin(const SessionInfo& session) = 0;
  virtual void OnThread(const ThreadInfo& thread) = 0;
  virtual void OnEvent(const ThreadInfo& thread, const TraceEvent& event) = 0;
  // `dropped_events`: events lost to the per-thread cap.
  [[nodiscard]] virtual absl::Status Finish(uint64_t dropped_events) = 0;
};

}  // namespace eagervm::profiler

#endif  // EAGERVM_PROFILER_TRACE_SINK_H_
