// The run-time index check of the CUDA kernels that read indices from a
// tensor (IndexSelect, IndexAdd, OneHot, CrossEntropy's labels).
//
// Why it waits for the device. An index out of range must fail the op with
// a message naming it, as on the CPU, and that error must reach everything
// computed from the op's outputs. The index values are on the device, and a
// dependent on the same stream is launched as soon as this kernel returns
// (vm/engine/engine.cc, AddEdge: a same-stream edge is satisfied at
// dispatch), so an error found after the kernel returned could poison this
// op's outputs but not what was already launched from them. So the check
// runs before the op's kernels: a small kernel finds the first bad position,
// which is copied back, and the calling thread (the scheduler's) waits for
// the stream (cudaStreamSynchronize) to read it. That wait drains the
// stream's earlier work: a host round trip per call of these ops, and
// nothing else in the runtime waits so (docs/cuda.md, "Index checks").
// Doing without it would need the engine to hold these ops' dependents
// until the op completed and a completion hook to turn a device-side error
// word into the outputs' error; see docs/cuda.md.
//
// A CUDA graph cannot record the wait: while the stream is being captured
// the check fails with FailedPrecondition, recording nothing, and graph
// replay falls back to running the segment's kernels one by one
// (graph/device_replay.cc), where the check runs as in eager mode.
#ifndef EAGERVM_KERNELS_CUDA_INDEX_CHECK_H_
#define EAGERVM_KERNELS_CUDA_INDEX_CHECK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "eagervm/kernel.h"

namespace eagervm::kernels::cuda_impl {

// A bad index: its position in the index tensor and its value.
struct BadIndex {
  int64_t position = -1;  // -1: every index is in range
  int64_t value = 0;
  bool found() const { return position >= 0; }
};

// The first of index[0..m) (device memory, in stream order on ctx's
// stream) outside [0, n), or none. Blocks until the stream has run
// everything launched on it so far. Only in a CUDA kernel call, on its
// thread; `op` names the op in errors. A CUDA failure is returned as its
// status; FailedPrecondition while the stream is capturing a CUDA graph.
absl::StatusOr<BadIndex> FindBadIndex(KernelContext& ctx, const int64_t* index, int64_t m,
                                      int64_t n, const char* op);

}  // namespace eagervm::kernels::cuda_impl

#endif  // EAGERVM_KERNELS_CUDA_INDEX_CHECK_H_
