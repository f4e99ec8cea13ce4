// Device-graph replay of a device segment (CUDA graphs). The second run of
// the segment (the first is the flat executor's warm-up) records its kernels
// with the stream's CaptureGraph; every later run copies the bound inputs
// and outputs into the staging buffers the recorded kernels point at
// (parameters are not staged: the kernels use their storages, whose
// addresses are stable), launches the graph once, and copies the written
// ones back. A run whose bound tensors share a storage runs flat. Anything that fails while
// recording (a kernel that synchronises, allocates or errs) makes the flat executor run instead.
#include "base/str_cat.h"
#include "graph/memory_plan.h"
#include "graph/plan.h"
#include "graph/plan_util.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::graph {

bool Plan::TryDeviceReplay(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound) {
  DeviceReplay& r = replays_[s];
  const Segment& seg = segments_[s];
  // Two bound tensors in one storage (an input passed twice, an input that
  // is a parameter): staged copies would not see each other's writes, as
  // eager code does. The flat executor runs this one.
  for (size_t i = 0; i < seg.bound.size(); ++i) {
    for (size_t j = i + 1; j < seg.bound.size(); ++j) {
      if (bound[seg.bound[i].first] == bound[seg.bound[j].first]) return false;
    }
  }
  if (r.graph != nullptr && r.temp_generation != arenas_[nodes_[seg.begin].arena].temp_generation) {
    r.graph.reset();  // the temporaries moved: record again
  }
  if (r.graph != nullptr) {
    for (size_t k = 0; k < seg.bound.size(); ++k) {
      const int slot = seg.bound[k].first;
      if (slots_[slot].kind == BufferKind::kParameter &&
          r.parameter_data[k] != At(bound[slot], offsets_[slot])) {
        r.graph.reset();  // a parameter's storage moved: its address is baked in
        break;
      }
    }
  }
  if (r.graph == nullptr) {
    if (r.warm_runs < 1) return false;  // loads modules, creates handles, sizes temporaries
    if (!RecordDeviceGraph(s, stream, bound)) return false;
  }
  LaunchDeviceGraph(s, stream, bound);
  return true;
}

void Plan::DeviceReplayFailed(DeviceReplay& r) {
  r.graph.reset();
  r.warm_runs = 0;
  if (++r.failures >= 2) r.eligible = false;
  device_graph_fallbacks_.fetch_add(1, std::memory_order_relaxed);
}

bool Plan::RecordDeviceGraph(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound) {
  DeviceReplay& r = replays_[s];
  const Segment& seg = segments_[s];
  constexpr size_t kAlign = 512;
  if (r.staging == nullptr) {
    size_t bytes = 0;
    r.staging_offsets.clear();
    // Inputs and outputs only: the kernels point at the parameters' own
    // storages (their addresses are stable; a change records again).
    for (const auto& [slot, written] : seg.bound) {
      r.staging_offsets.push_back(bytes);
      if (slots_[slot].kind != BufferKind::kParameter)
        bytes += AlignUp(slots_[slot].nbytes, kAlign);
    }
    if (bytes > 0) {
      absl::StatusOr<void*> p = stream->allocator()->Allocate(bytes);
      if (!p.ok()) {
        DeviceReplayFailed(r);
        return false;
      }
      r.staging = static_cast<char*>(*p);
      r.staging_bytes = bytes;
    }
  }
  r.parameter_data.assign(seg.bound.size(), nullptr);
  for (size_t k = 0; k < seg.bound.size(); ++k) {
    const int slot = seg.bound[k].first;
    if (slots_[slot].kind == BufferKind::kParameter) {
      r.parameter_data[k] = At(bound[slot], offsets_[slot]);
    }
  }
  for (const Segment::Patch& p : seg.patches) {
    if (slots_[p.slot].kind == BufferKind::kParameter) {
      p.operand->data = At(bound[p.slot], offsets_[p.slot] + p.offset);
    } else {
      p.operand->data = r.staging + r.staging_offsets[p.bound_index] + p.offset;
    }
  }
  Arena& arena = arenas_[nodes_[seg.begin].arena];
  arena.region.strict = true;  // a temporary from the allocator would be baked into the graph
  absl::StatusOr<std::unique_ptr<vm::DeviceGraph>> g =
      stream->policy()->CaptureGraph([&]() -> absl::Status {
        for (int i = seg.begin; i < seg.end; ++i) {
          absl::Status st = Execute(nodes_[i]);
          if (!st.ok()) return st;
        }
        return absl::OkStatus();
      });
  arena.region.strict = false;
  if (!g.ok()) {
    DeviceReplayFailed(r);
    return false;
  }
  r.graph = *std::move(g);
  r.temp_generation = arena.temp_generation;
  return true;
}

void Plan::LaunchDeviceGraph(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound) {
  DeviceReplay& r = replays_[s];
  const Segment& seg = segments_[s];
  vm::StreamPolicy* policy = stream->policy();
  absl::Status st;
  for (size_t k = 0; k < seg.bound.size() && st.ok(); ++k) {
    if (slots_[seg.bound[k].first].kind == BufferKind::kParameter) continue;  // not staged
    const vm::BlobObject* b = bound[seg.bound[k].first];
    const size_t n = slots_[seg.bound[k].first].nbytes;
    const char* src = static_cast<const char*>(b->data()) + offsets_[seg.bound[k].first];
    if (n > 0) st = policy->CopyOnDevice(r.staging + r.staging_offsets[k], src, n);
  }
  if (st.ok()) st = r.graph->Launch();
  for (size_t k = 0; k < seg.bound.size() && st.ok(); ++k) {
    if (!seg.bound[k].second || slots_[seg.bound[k].first].kind == BufferKind::kParameter) continue;
    vm::BlobObject* b = bound[seg.bound[k].first];
    const size_t n = slots_[seg.bound[k].first].nbytes;
    char* dst = static_cast<char*>(b->data()) + offsets_[seg.bound[k].first];
    if (n > 0) st = policy->CopyOnDevice(dst, r.staging + r.staging_offsets[k], n);
  }
  if (st.ok()) {
    device_graph_runs_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // The device refused the launch or a copy: what the segment writes is
  // poisoned, as a failing kernel's outputs would be.
  auto e = std::make_shared<vm::ErrorRecord>(
      absl::Status(st.code(), base::Cat("LaunchPlan: ", st.message())));
  stream->context()->RecordError(e);
  for (int i = seg.begin; i < seg.end; ++i) {
    for (int w : nodes_[i].writes) SetError(w, e, bound);
  }
  DeviceReplayFailed(r);
}

}  // namespace eagervm::graph
