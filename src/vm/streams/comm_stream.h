// The stream index of each device's communication stream (collectives,
// docs/distributed.md). Above the compute streams, below the copy streams
// (vm/policies/device_copy_policy.h). On CPU it always has its own worker thread
// (except with VmOptions::synchronous), even with compute_on_scheduler_thread:
// a collective blocks until every rank joins, and must not stall the
// scheduler meanwhile.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_STREAMS_COMM_STREAM_H_
#define EAGERVM_VM_STREAMS_COMM_STREAM_H_

namespace eagervm::vm {

inline constexpr int kCommStreamIndex = 61;
// Each device's graph stream: where a Graph runs unless GraphOptions::stream
// says otherwise (docs/graph.md), so eager work on the compute streams is
// not queued behind a running plan.
inline constexpr int kGraphStreamIndex = 60;

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAMS_COMM_STREAM_H_
