// TraceEvent: one record in a per-thread trace buffer. Fixed size and
// trivially copyable so recording is a store into a preallocated chunk.
#ifndef EAGERVM_PROFILER_TRACE_EVENT_H_
#define EAGERVM_PROFILER_TRACE_EVENT_H_

#include <cstdint>

namespace eagervm::profiler {

enum class EventKind : uint8_t {
  kSlice,    // a duration [ts, ts + value) on the recording thread's row
  kCounter,  // a sampled value of the counter track `name`
};

struct TraceEvent {
  // Both strings must outlive the process's last trace (literals, op names of
  // the registry, or Intern()ed strings).
  const char* name;
  const char* category;
  int64_t ts_ns;  // steady clock
  int64_t value;  // duration in ns (kSlice) or the counter's value (kCounter)
  int64_t arg;    // kSlice: an optional count shown as args.n (< 0: none)
  EventKind kind;
};

// Interns `s` for use as an event name: returns a pointer that stays valid
// for the life of the process. Takes a lock: not for the hot path.
const char* Intern(const char* s);

}  // namespace eagervm::profiler

#endif  // EAGERVM_PROFILER_TRACE_EVENT_H_
