// Plan: a captured Program after the passes, laid out for the executor.
//
//   passes   dead-code elimination; constants (nodes that depend on no input
//            and no parameter) hoisted to an init phase run by the first Run
//   memory   inputs, parameters and outputs are bound per run (zero copy);
//            intermediates and constants live in one arena per stream,
//            planned by lifetime (graph/memory_plan.h); kernel temporaries
//            come from a region sized by the first run
//   segments the nodes in capture order, cut where the stream changes and
//            after the last access of an input, an output or a parameter
//            the plan writes (not a read-only parameter): each segment is one
//            VM instruction, so eager code waits only for the segment that
//            last touches its tensor (the critical sections)
//
// A plan is shared by every run of its graph; its mutable parts (operand
// pointers, error marks, the arenas) are touched only by the segment that
// runs, and every segment writes the plan's token storage, so the VM runs
// the segments of all runs of one plan one at a time, in order.
#ifndef EAGERVM_GRAPH_PLAN_H_
#define EAGERVM_GRAPH_PLAN_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/graph.h"
#include "graph/program.h"
#include "vm/blob_object.h"
#include "vm/engine/instruction_policy.h"
#include "vm/kernel_args.h"
#include "vm/policies/launch_policy.h"
#include "vm/streams/stream_policy.h"

namespace eagervm::graph {

// Where a buffer lives.
struct Placement {
  enum Kind : uint8_t { kNone, kBound, kArena } kind = kNone;
  int index = -1;     // bound slot, or arena
  size_t offset = 0;  // in the arena
};

// What a node's read of an intermediate finds, known at capture: every
// earlier write is in capture order, and each run's intermediates are fresh
// (a write that failed leaves an error, which readers forward first).
enum class ReadState : uint8_t {
  kWritten,     // every byte read was written
  kNever,       // nothing wrote the storage: "was never written"
  kNotCovered,  // writes through views missed some bytes: "no write covered"
};

struct PlanNode {
  const char* name = nullptr;
  const KernelFn* kernel = nullptr;  // null: a host write
  vm::BlobCallback host_write;
  internal::KernelArgs args;  // built once; operand pointers patched as memory is bound
  std::vector<int> reads;     // buffers, for error forwarding (input i is reads[i])
  // Per input, when one reads an intermediate's bytes nothing wrote (else
  // empty): the node is refused as eagerly.
  std::vector<ReadState> read_states;
  // Inputs written without being read: healed, not forwarded.
  internal::MutatedMask overwritten_mask;
  std::vector<int> writes;  // outputs and mutated inputs
  // Per write: whether it covers its value's whole buffer at capture (offset
  // 0, all bytes). Only such a write heals an error, as eagerly; a bound
  // slot's view offset is checked per run.
  std::vector<bool> writes_whole;
  std::vector<const internal::Operand*> write_operands;  // per write: where it writes
  std::vector<int> dying;  // arena buffers whose last use this is (check mode)
  // This node's bound operands: (operand, slot, offset in the storage).
  std::vector<std::tuple<internal::Operand*, int, int64_t>> bound_patches;
  int arena = -1;                      // whose temporary region it uses
  std::vector<FusedLink> fused_links;  // Node::fused_links
};

struct Arena {
  vm::VmStream* stream = nullptr;
  size_t alignment = 64;
  size_t constant_bytes = 0;  // [0, constant_bytes): hoisted constants
  size_t planned_bytes = 0;   // then the intermediates
  size_t lower_bound = 0;
  char* base = nullptr;       // allocated by the first segment on `stream`
  char* temp_base = nullptr;  // kernel temporaries, sized after the first run
  size_t temp_size = 0;
  size_t temp_needed = 0;
  internal::TempRegion region;
  uint64_t temp_generation = 0;  // bumped when the temporaries region moves
  // Operands inside this arena: (operand, offset from base).
  std::vector<std::pair<internal::Operand*, size_t>> patches;
};

struct BoundSlot {
  BufferKind kind;
  int slot;  // input or parameter index; output buffers: -1
  size_t nbytes = 0;
  Device device;
  vm::VmStream* writer = nullptr;  // the stream of its first writer (outputs: its producer)
  bool written = false;
  // Outputs the plan writes only in part (through views): the byte ranges
  // written, so a run's fresh storage refuses to read the others, as eagerly.
  bool partly_written = false;
  std::vector<std::pair<size_t, size_t>> written_ranges;
};

struct Segment {
  vm::VmStream* stream = nullptr;
  int begin = 0, end = 0;                   // main nodes [begin, end)
  std::vector<std::pair<int, bool>> bound;  // slot, written
  // Operands bound per run: (operand, slot, offset in the storage).
  struct Patch {
    internal::Operand* operand;
    int slot;
    int64_t offset;
    int bound_index;  // of `slot` in `bound`
  };
  std::vector<Patch> patches;
  size_t inline_bytes = vm::InstructionPolicy::kNotInline;
  // Its nodes' operand bytes if none may block (vm::LaunchTarget::DonatableBytes).
  size_t donatable_bytes = vm::LaunchTarget::kNotDonatable;
  bool checked = false;  // a node reads bytes nothing wrote: the checked loop refuses it
};

// A device segment replayed as one device graph (CUDA graphs): recorded on
// its second run, after a warm-up through the flat executor. The graph's
// addresses are fixed: the arena's, and staging copies of the bound
// tensors, refreshed around each launch (src/graph/device_replay.cc).
struct DeviceReplay {
  bool eligible = false;
  int warm_runs = 0;
  int failures = 0;  // two failed recordings: the flat executor for good
  std::unique_ptr<vm::DeviceGraph> graph;
  uint64_t temp_generation = 0;
  char* staging = nullptr;
  size_t staging_bytes = 0;
  std::vector<size_t> staging_offsets;  // per Segment::bound entry (parameters: unused)
  std::vector<void*> parameter_data;    // per entry: the parameter's address when recorded
};

class Plan {
 public:
  // The passes and the layout. `program` is consumed.
  static absl::StatusOr<std::shared_ptr<Plan>> Build(Program program, const GraphOptions& options);
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Runs segment `s` with these storages bound (one per bound slot), the
  // bound tensors starting `offsets[slot]` bytes into them (views), on
  // `stream`'s thread. Never throws.
  void RunSegment(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound,
                  absl::Span<const int64_t> offsets);

  const std::vector<Segment>& segments() const { return segments_; }
  const std::vector<BoundSlot>& slots() const { return slots_; }
  vm::BlobObject* token() const { return &token_; }
  // The bound slot of a buffer (inputs, parameters, outputs), or -1.
  int slot_of(int buffer) const {
    return placement_[buffer].kind == Placement::kBound ? placement_[buffer].index : -1;
  }
  int num_inputs() const { return num_inputs_; }
  int num_parameters() const { return num_parameters_; }
  GraphStats stats() const;

 private:
  Plan() : token_(0, Device::Cpu()) {}
  friend class PlanBuilder;

  void AllocateArenas(vm::VmStream* stream, bool* failed);
  bool TryDeviceReplay(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound);
  bool RecordDeviceGraph(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound);
  void LaunchDeviceGraph(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound);
  void DeviceReplayFailed(DeviceReplay& r);
  bool RunNodes(std::vector<PlanNode>& nodes, int begin, int end, bool slow, vm::VmStream* stream,
                absl::Span<vm::BlobObject* const> bound);
  bool RunSlow(PlanNode& n, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound);
  bool RefuseFused(PlanNode& n, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound);
  vm::ErrorPtr Refusal(ReadState r, size_t input, const PlanNode& n, size_t i, const char* op,
                       vm::VmStream* stream) const;
  ReadState ReadStateOf(const PlanNode& n, size_t i, absl::Span<vm::BlobObject* const> bound) const;
  absl::Status Execute(PlanNode& n);
  void AfterNode(PlanNode& n, vm::VmStream* stream);
  const vm::ErrorPtr& ErrorOf(int buffer, absl::Span<vm::BlobObject* const> bound) const;
  void SetError(int buffer, const vm::ErrorPtr& e, absl::Span<vm::BlobObject* const> bound);
  // `op`: the name the error carries (null: the node's).
  void Fail(PlanNode& n, vm::VmStream* stream, absl::Status s,
            absl::Span<vm::BlobObject* const> bound);

  // The running segment's per-slot view offsets (RunSegment's argument).
  absl::Span<const int64_t> offsets_;
  std::vector<Placement> placement_;  // per buffer
  std::vector<BoundSlot> slots_;
  std::vector<PlanNode> init_;
  std::vector<PlanNode> nodes_;
  std::vector<Segment> segments_;
  std::vector<Arena> arenas_;
  std::vector<DeviceReplay> replays_;  // per segment
  std::vector<vm::ErrorPtr> errors_;   // per buffer, for those the plan owns
  std::vector<int> transient_;         // arena buffers that are not constants: fresh each run
  std::vector<size_t> buffer_bytes_;
  int poisoned_ = 0;  // non-null entries of errors_
  bool initialized_ = false;
  bool check_lifetimes_ = false;
  int num_inputs_ = 0;
  int num_parameters_ = 0;
  int64_t captured_nodes_ = 0;
  int64_t fused_nodes_ = 0, fused_ops_ = 0;
  std::vector<std::unique_ptr<KernelFn>> fused_kernels_;  // the fused nodes' (graph/fusion.h)
  std::atomic<int64_t> temp_bytes_{0};                    // for stats(), from any thread
  std::atomic<int64_t> device_graph_runs_{0};
  std::atomic<int64_t> device_graph_fallbacks_{0};
  mutable vm::BlobObject token_;  // never allocated: its dependence orders the segments
};

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_PLAN_H_
