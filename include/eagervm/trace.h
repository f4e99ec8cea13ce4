// Tracing: record what the VM does as a Chrome/Perfetto trace.
//
//   EAGERVM_CHECK_OK(eagervm::StartTrace());
//   ... ops ...
//   EAGERVM_CHECK_OK(eagervm::StopTrace("trace.json"));   // open in ui.perfetto.dev
//
// Rows: each user thread that submits work, the scheduler, each stream
// worker. Slices: every instruction's compute, named by op; scheduler passes;
// submissions. Counters: queue depths and bytes in use per device.
// EAGERVM_TRACE=path.json traces a whole run (written at Shutdown or exit).
// When no trace is recording, the cost is one relaxed atomic load per hook.
// See docs/tracing.md.
#ifndef EAGERVM_TRACE_H_
#define EAGERVM_TRACE_H_

#include <string>

#include "absl/status/status.h"
#include "eagervm/export.h"

namespace eagervm {

// Any user thread. Starts recording. FailedPrecondition if a trace is already
// recording (including one started by EAGERVM_TRACE), the VM is shut down, or
// when called on a VM thread (inside a kernel).
[[nodiscard]] EAGERVM_EXPORT absl::Status StartTrace();

// Blocks: waits until the work submitted before it has finished (so it is in
// the trace; errors are left for Sync to report), stops recording and writes
// the trace to `path` as JSON. FailedPrecondition if no trace is recording or
// when called on a VM thread; an error naming `path` if it cannot be written.
[[nodiscard]] EAGERVM_EXPORT absl::Status StopTrace(const std::string& path);

// True while a trace is recording. Any thread.
EAGERVM_EXPORT bool IsTracing();

}  // namespace eagervm

#endif  // EAGERVM_TRACE_H_
