// Graph mode: capture a function of tensors once, replay it as one VM launch.
// docs/graph.md explains the capture rules, parameters and constants, the
// critical sections, the memory plan and the executor.
#ifndef EAGERVM_GRAPH_H_
#define EAGERVM_GRAPH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/export.h"
#include "eagervm/stream.h"
#include "eagervm/tensor.h"

namespace eagervm {

struct GraphStats {
  int64_t captured_nodes = 0;     // ops recorded by Capture
  int64_t nodes = 0;              // nodes run per Run() after the passes (constants hoisted out)
  int64_t constant_nodes = 0;     // run once, by the first Run
  int64_t fused_nodes = 0;        // nodes that each run a chain of elementwise ops
  int64_t fused_ops = 0;          // captured ops inside those chains
  int64_t segments = 0;           // instructions per Run() (critical sections, streams)
  int64_t arena_bytes = 0;        // planned memory for intermediates and kernel temporaries
  int64_t lower_bound_bytes = 0;  // peak of simultaneously live intermediate bytes
  int64_t constant_bytes = 0;     // memory of the hoisted constants
  int64_t runs = 0;               // Run() calls accepted
  int64_t device_graph_runs = 0;  // segments replayed as one CUDA graph launch
  int64_t device_graph_fallbacks = 0;  // captures that failed (the flat executor ran instead)
};

struct GraphOptions {
  // Test mode: after the last use of each intermediate, the executor fills
  // its arena bytes with a pattern (0xFF: NaN for floats), so a lifetime bug
  // in the memory plan changes results instead of hiding. CPU arenas only.
  bool check_lifetimes = false;
  // Replay each CUDA segment as a CUDA graph from its second run on (after
  // one warm-up run through the flat executor), falling back to the flat
  // executor if recording fails. No effect on CPU segments.
  bool device_graphs = true;
  // Fuse chains of float32 elementwise ops on a CPU stream (Add Sub Mul Div
  // Maximum, their Scalar forms, Relu, Neg) into one node each, evaluated
  // tile by tile; results only the chain reads are never allocated.
  // Bitwise equal to the unfused ops (docs/graph.md, "Fusion").
  bool fuse = true;
  // The stream the plan runs on for its device. Unset: the device's graph
  // stream, a stream of its own (with its own worker thread on CPU), so
  // eager work on other tensors proceeds while a plan runs. Ops that `fn`
  // puts on another stream with a StreamScope inside it keep that stream;
  // ops on the stream current when Capture was called go here.
  std::optional<Stream> stream;
};

// A captured program. Movable and copyable (copies share the plan); Run may
// be called from several threads at once: runs are ordered, each as if it
// ran eagerly at the moment Run was called.
class EAGERVM_EXPORT Graph {
 public:
  using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

  // Calls `fn` once, on this thread, with symbolic inputs of these metas: the
  // ops inside it are recorded and checked (shape and dtype inference runs;
  // a bad call fails Capture with the op's own InvalidArgument), nothing
  // runs. Other threads keep running eagerly meanwhile. Real tensors used
  // inside `fn` are parameters, captured by reference: every Run reads and
  // writes their current storage. Item, ToVector, Wait, Sync, Barrier,
  // AccessBlobByCallback, copies between devices, Graph::Run and a nested
  // Capture inside `fn` fail Capture (FailedPrecondition naming the node),
  // even if `fn` ignores the error. A tensor made inside `fn` that is still
  // referenced when it returns (a captured variable, a global, `w = w - g`)
  // fails Capture with InvalidArgument naming the op that made it: update
  // parameters in place, or return the tensor. Custom ops run on every Run
  // unless OpOptions::pure. Reading bytes no write covered (an Empty tensor,
  // one written only through views) does not fail Capture: that node fails
  // at run time with eager's error, as eagerly. User threads only; blocks only for `fn`
  // itself. `fn` need only live for the call (it is destroyed before
  // Capture returns).
  static absl::StatusOr<Graph> Capture(std::vector<TensorMeta> inputs, Fn fn,
                                       GraphOptions options = {});

  // Never blocks (except for back-pressure, like an eager op): queues the
  // plan (one instruction per segment, GraphStats::segments) on the graph's
  // stream (GraphOptions::stream) and returns the outputs,
  // which are computed asynchronously like eager results. Inputs are read
  // (and, where `fn` wrote them, written) in place; they must match the
  // captured metas: InvalidArgument naming the index and both metas, nothing
  // queued. A view is bound as eager code sees it (its storage, from its
  // offset); a strided view (!is_contiguous()) cannot be bound: InvalidArgument
  // (pass its Contiguous() copy). An output that is an input or a parameter is
  // that tensor (a view of the bound storage); other outputs are fresh tensors
  // each run; an output `fn` returned as a strided view is the same view of
  // its run's storage. Any thread
  // that may run eager ops; `inputs` need only live for the call.
  absl::StatusOr<std::vector<Tensor>> Run(absl::Span<const Tensor> inputs) const;

  // Never blocks; any thread.
  GraphStats GetStats() const;

  struct State;  // the captured program and its plan (defined in src/graph/graph.cc)

 private:
  explicit Graph(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace eagervm

#endif  // EAGERVM_GRAPH_H_
