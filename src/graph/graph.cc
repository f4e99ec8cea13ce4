// The public Graph: Capture (record, then plan) and Run (bind, launch).
#include "eagervm/graph.h"

#include <atomic>
#include <exception>
#include <sstream>

#include "base/log.h"
#include "base/str_cat.h"
#include "graph/plan.h"
#include "graph/recorder.h"
#include "graph/run_state.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/fork_guard.h"
#include "vm/tensor_impl.h"

namespace eagervm {

struct Graph::State {
  std::shared_ptr<graph::Plan> plan;
  std::vector<TensorMeta> input_metas;
  std::vector<std::shared_ptr<internal::StorageHandle>> parameters;
  struct Output {
    int slot;
    TensorMeta meta;
    int64_t offset;
    std::vector<int64_t> strides;  // a strided view's (tensor_impl.h); empty: compact
  };
  std::vector<Output> outputs;
  mutable std::atomic<int64_t> runs{0};
  // Captured before a fork(): its plan runs on the parent's VM (docs/reliability.md).
  const uint32_t fork_generation = vm::ForkGeneration();
};

namespace {

std::string MetaString(const TensorMeta& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

}  // namespace

absl::StatusOr<Graph> Graph::Capture(std::vector<TensorMeta> inputs, Fn fn, GraphOptions options) {
  if (vm::Builder* outer = vm::CurrentRecorder(); outer != nullptr) {
    absl::Status s = absl::FailedPreconditionError(
        "Graph::Capture: called inside another capture; nested capture is not supported (call the "
        "inner function directly: its ops are recorded into the outer graph)");
    outer->NoteRejection(s);
    return s;
  }
  if (absl::Status s = vm::CheckMayBlock("Graph::Capture"); !s.ok()) return s;
  if (!fn) return absl::InvalidArgumentError("Graph::Capture: empty function");
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].shape.IsValid()) {
      return absl::InvalidArgumentError(base::Cat(
          "Graph::Capture: input ", i, " has an invalid shape ", inputs[i].shape.ToString()));
    }
  }
  graph::Recorder recorder(options.stream);
  std::vector<std::vector<int64_t>> output_strides;
  {
    vm::ScopedRecorder scope(&recorder);
    std::vector<Tensor> symbolic = recorder.MakeInputs(inputs);
    std::vector<Tensor> results;
    try {
      results = fn(symbolic);
    } catch (const std::exception& e) {
      recorder.Fail(
          absl::InternalError(base::Cat("Graph::Capture: the function threw: ", e.what())));
    } catch (...) {
      recorder.Fail(absl::InternalError("Graph::Capture: the function threw a non-std::exception"));
    }
    if (recorder.error().ok()) {
      if (absl::Status s = recorder.SetOutputs(results); !s.ok()) recorder.Fail(s);
      // A strided view among the results is returned as the same view of
      // its buffer on every run.
      for (const Tensor& r : results) {
        output_strides.push_back(r.ok() ? internal::ImplOf(r)->strides : std::vector<int64_t>{});
      }
    }
  }
  fn = nullptr;  // a tensor it holds (a mutable lambda's copy) is no escape once it is gone
  if (absl::Status escaped = recorder.CheckNoEscapes(); !escaped.ok()) recorder.Fail(escaped);
  if (!recorder.error().ok()) return recorder.error();

  auto state = std::make_shared<State>();
  graph::Program& program = recorder.program();
  state->input_metas = program.input_metas;
  state->parameters = program.parameters;
  std::vector<graph::Value> outputs = program.outputs;
  absl::StatusOr<std::shared_ptr<graph::Plan>> plan =
      graph::Plan::Build(std::move(program), options);
  if (!plan.ok()) return plan.status();
  state->plan = *std::move(plan);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const graph::Value& v = outputs[i];
    state->outputs.push_back(
        State::Output{state->plan->slot_of(v.buffer), v.meta, v.offset, output_strides[i]});
  }
  if (base::LogEnabled(LogLevel::kDebug)) {
    const GraphStats st = state->plan->stats();
    EAGERVM_LOG(kDebug, "graph captured: ", st.captured_nodes, " ops -> ", st.nodes,
                " nodes per run (", st.constant_nodes, " constants hoisted), ", st.segments,
                " segment(s), arena ", st.arena_bytes, " bytes (lower bound ", st.lower_bound_bytes,
                "), ", state->parameters.size(), " parameter(s)");
  }
  return Graph(std::move(state));
}

absl::StatusOr<std::vector<Tensor>> Graph::Run(absl::Span<const Tensor> inputs) const {
  if (state_ == nullptr) return absl::FailedPreconditionError("Graph::Run: a moved-from Graph");
  const State& st = *state_;
  if (st.fork_generation != vm::ForkGeneration()) [[unlikely]] {
    return absl::FailedPreconditionError(
        "Graph::Run: the graph was captured before fork(), in the parent process; its plan "
        "and parameters belong to the parent's VM. Capture it again in the child");
  }
  if (inputs.size() != st.input_metas.size()) {
    return absl::InvalidArgumentError(
        base::Cat("Graph::Run: expected ", st.input_metas.size(), " inputs, got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = internal::CheckTensor(inputs[i], "Graph::Run", base::Cat("input ", i));
        !s.ok()) {
      return s;
    }
    if (!(inputs[i].meta() == st.input_metas[i])) {
      return absl::InvalidArgumentError(
          base::Cat("Graph::Run: input ", i, " is ", MetaString(inputs[i].meta()),
                    " but the graph was captured with ", MetaString(st.input_metas[i])));
    }
  }
  graph::Plan& plan = *st.plan;
  const std::vector<graph::BoundSlot>& slots = plan.slots();
  // The plan reads its inputs as compact bytes: a strided view cannot be bound.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!internal::ImplOf(inputs[i])->strides.empty()) {
      return absl::InvalidArgumentError(
          base::Cat("Graph::Run: input ", i, " is a strided view ", inputs[i].shape().ToString(),
                    " (Permute, T, Expand or Slice on an inner axis); pass its Contiguous() copy"));
    }
  }
  std::vector<std::shared_ptr<vm::BlobObject>> bound(slots.size());
  std::vector<std::shared_ptr<internal::StorageHandle>> storage(slots.size());
  // A view passed as an input is bound as eager code sees it: its storage,
  // from its offset on (the captured input was a whole storage of its meta).
  std::vector<int64_t> offsets(slots.size(), 0);
  for (size_t s = 0; s < slots.size(); ++s) {
    const graph::BoundSlot& slot = slots[s];
    switch (slot.kind) {
      case graph::BufferKind::kInput:
        storage[s] = internal::ImplOf(inputs[slot.slot])->storage;
        offsets[s] = internal::ImplOf(inputs[slot.slot])->offset;
        break;
      case graph::BufferKind::kParameter:
        storage[s] = st.parameters[slot.slot];
        break;
      case graph::BufferKind::kIntermediate: {
        auto blob = std::make_shared<vm::BlobObject>(slot.nbytes, slot.device);
        if (slot.partly_written) {
          // The plan writes only these bytes: reading others fails, as
          // eagerly (no instruction has seen the storage yet).
          blob->NoteWritten(0, 0, /*fresh=*/true);
          for (const auto& [begin, end] : slot.written_ranges) blob->NoteWritten(begin, end, false);
        }
        storage[s] = std::make_shared<internal::StorageHandle>(std::move(blob));
        break;
      }
    }
    bound[s] = storage[s]->blob();
    // A run writing an input or a parameter changes it as an in-place op
    // would: autograd then refuses a tape that saved its old values.
    if (slot.written && slot.kind != graph::BufferKind::kIntermediate) storage[s]->BumpVersion();
    if (slot.written) {
      // Memory and release come from the writer's stream; reads of the
      // result go to the caller's current stream, which then waits only for
      // the segment that last touches it (not for the whole plan).
      bound[s]->NoteWrite(slot.writer);
      absl::StatusOr<vm::VmStream*> here =
          vm::ResolveStream(Stream::Current(slot.device), "Graph::Run");
      if (here.ok()) bound[s]->NoteWrite(*here);
    }
  }
  std::vector<Tensor> results;
  results.reserve(st.outputs.size());
  for (const State::Output& o : st.outputs) {
    auto impl = std::make_shared<internal::TensorImpl>();
    impl->meta = o.meta;
    impl->storage = storage[o.slot];
    impl->offset = offsets[o.slot] + o.offset;  // an output aliasing a view input stays in it
    impl->strides = o.strides;
    results.push_back(internal::WrapImpl(std::move(impl)));
  }
  auto run = std::make_shared<graph::RunState>(st.plan, std::move(bound), std::move(offsets));
  const auto& segments = plan.segments();
  absl::Status s = vm::PhysicalRun([&](vm::Builder* b) {
    for (size_t i = 0; i < segments.size(); ++i) {
      if (absl::Status l = b->Launch(run, static_cast<int>(i), segments[i].stream); !l.ok())
        return l;
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  st.runs.fetch_add(1, std::memory_order_relaxed);
  return results;
}

GraphStats Graph::GetStats() const {
  if (state_ == nullptr) return GraphStats{};
  GraphStats s = state_->plan->stats();
  s.runs = state_->runs.load(std::memory_order_relaxed);
  return s;
}

}  // namespace eagervm
