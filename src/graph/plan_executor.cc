// The flat executor: a segment is a loop over its nodes calling each kernel
// with the context built at plan time. No allocation, no locks, no
// std::function copies on this path; errors switch the rest of the segment
// to a checked loop that forwards and heals them exactly as eager ops do.
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "base/str_cat.h"
#include "graph/plan.h"
#include "graph/plan_util.h"
#include "profiler/tracer.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::graph {

Plan::~Plan() {
  // The last run's instructions are released (or there were none): no
  // kernel uses the arenas any more. Freed in the streams' order.
  for (Arena& a : arenas_) {
    if (a.base != nullptr)
      a.stream->allocator()->Deallocate(a.base, a.constant_bytes + a.planned_bytes);
    if (a.temp_base != nullptr) a.stream->allocator()->Deallocate(a.temp_base, a.temp_size);
  }
  for (size_t s = 0; s < replays_.size(); ++s) {
    if (replays_[s].staging != nullptr) {
      segments_[s].stream->allocator()->Deallocate(replays_[s].staging, replays_[s].staging_bytes);
    }
  }
}

void Plan::AllocateArenas(vm::VmStream* stream, bool* failed) {
  for (Arena& a : arenas_) {
    if (a.stream != stream) continue;
    const size_t bytes = a.constant_bytes + a.planned_bytes;
    if (a.base == nullptr && bytes > 0) {
      absl::StatusOr<void*> p = stream->allocator()->Allocate(bytes);
      if (!p.ok()) {
        *failed = true;
        continue;
      }
      a.base = static_cast<char*>(*p);
      for (auto& [op, offset] : a.patches) op->data = a.base + offset;
    }
    if (a.temp_needed > a.temp_size) {  // known after the first run
      if (a.temp_base != nullptr) stream->allocator()->Deallocate(a.temp_base, a.temp_size);
      a.temp_base = nullptr;
      a.temp_size = 0;
      absl::StatusOr<void*> p = stream->allocator()->Allocate(a.temp_needed);
      if (p.ok()) {  // else the kernels keep asking the allocator
        a.temp_base = static_cast<char*>(*p);
        a.temp_size = a.temp_needed;
        temp_bytes_.fetch_add(static_cast<int64_t>(a.temp_size), std::memory_order_relaxed);
      }
      a.region.base = a.temp_base;
      a.region.size = a.temp_size;
      ++a.temp_generation;
    }
  }
}

const vm::ErrorPtr& Plan::ErrorOf(int buffer, absl::Span<vm::BlobObject* const> bound) const {
  const Placement& pl = placement_[buffer];
  return pl.kind == Placement::kBound ? bound[pl.index]->error() : errors_[buffer];
}

void Plan::SetError(int buffer, const vm::ErrorPtr& e, absl::Span<vm::BlobObject* const> bound) {
  const Placement& pl = placement_[buffer];
  if (pl.kind == Placement::kBound) {
    bound[pl.index]->set_error(e);
    return;
  }
  vm::ErrorPtr& slot = errors_[buffer];
  poisoned_ += (e != nullptr) - (slot != nullptr);
  slot = e;
}

namespace {

// A new failure of `op`, reported at the next sync point.
vm::ErrorPtr NewError(vm::VmStream* stream, const char* op, const absl::Status& s) {
  auto e =
      std::make_shared<vm::ErrorRecord>(absl::Status(s.code(), base::Cat(op, ": ", s.message())));
  stream->context()->RecordError(e);
  return e;
}

}  // namespace

void Plan::Fail(PlanNode& n, vm::VmStream* stream, absl::Status s,
                absl::Span<vm::BlobObject* const> bound) {
  const vm::ErrorPtr e = NewError(stream, n.name, s);
  for (int w : n.writes) SetError(w, e, bound);
}

absl::Status Plan::Execute(PlanNode& n) {
  internal::TempRegion* region = n.args.temp_region;
  region->used = 0;
  region->requested = 0;
  absl::Status status;
  try {
    if (n.kernel != nullptr) [[likely]] {
      KernelContext ctx = internal::KernelContextAccess::Make(&n.args);
      status = (*n.kernel)(ctx);
    } else {
      // A host write (FromVector captured): straight into host memory, else
      // filled on the host and copied to the device by its stream.
      const internal::Operand& out = n.args.outputs[0];
      const size_t bytes = static_cast<size_t>(out.meta->shape.numel()) * SizeOf(out.meta->dtype);
      vm::StreamPolicy* policy = n.args.stream->policy();
      if (policy->device().is_cpu()) {
        n.host_write(nullptr, out.data, bytes);
      } else {
        std::vector<char> host(bytes);
        n.host_write(nullptr, host.data(), bytes);
        status = policy->CopyFromHost(out.data, host.data(), bytes);
      }
    }
  } catch (const std::exception& ex) {
    status = absl::InternalError(base::Cat("kernel threw: ", ex.what()));
  } catch (...) {
    status = absl::InternalError("kernel threw a non-std::exception");
  }
  if (!n.args.temps.empty()) [[unlikely]] {  // temporaries beyond the planned region
    for (auto& [ptr, bytes] : n.args.temps) n.args.stream->allocator()->Deallocate(ptr, bytes);
    n.args.temps.clear();
  }
  Arena& arena = arenas_[n.arena];
  if (region->requested > arena.temp_needed) [[unlikely]]
    arena.temp_needed = region->requested;
  return status;
}

namespace {

size_t Bytes(const internal::Operand& o) {
  return static_cast<size_t>(o.meta->shape.numel()) * SizeOf(o.meta->dtype);
}

}  // namespace

// Why input `i` of `n` cannot be read (kWritten: it can), as eagerly: a
// bound input or parameter by its storage's state now, an intermediate by
// what the plan wrote into it before (PlanNode::read_states).
ReadState Plan::ReadStateOf(const PlanNode& n, size_t i,
                            absl::Span<vm::BlobObject* const> bound) const {
  const Placement& pl = placement_[n.reads[i]];
  if (pl.kind == Placement::kBound) {
    const vm::BlobObject* b = bound[pl.index];
    if (!b->allocated()) return ReadState::kNever;
    if (slots_[pl.index].kind != BufferKind::kIntermediate && b->partly_written()) {
      const internal::Operand& o = n.args.inputs[i];
      const auto begin = static_cast<size_t>(offsets_[pl.index] + o.offset);
      if (!b->Written(begin, begin + Bytes(o))) return ReadState::kNotCovered;
    }
  }
  return i < n.read_states.size() ? n.read_states[i] : ReadState::kWritten;
}

// The failure of `op` reading input `i` of `n` (its own input `input`) in state `r`,
// worded as OpCallPolicy::RefuseInput words it.
vm::ErrorPtr Plan::Refusal(ReadState r, size_t input, const PlanNode& n, size_t i, const char* op,
                           vm::VmStream* stream) const {
  const std::string shape = internal::InputShapeText(n.args, i);
  return NewError(
      stream, op,
      absl::FailedPreconditionError(
          r == ReadState::kNever
              ? base::Cat("input ", input, " ", shape,
                          " was never written (or its storage was released)")
              : base::Cat("input ", input, " ", shape,
                          " reads bytes of its storage that no write covered (a write through "
                          "a view wrote only part of a storage that was never written)")));
}

// A fused node's checked reads: link by link, each link's operands in its
// op's order, as the unfused ops would have run. A link forwards the first
// error among its operands (an input's, or an earlier link's) or is refused
// for the first one it cannot read; each output gets its link's error.
// False, with every output poisoned, if any link failed (fusion.h: then
// every written-out link did); true if the chain can run.
bool Plan::RefuseFused(PlanNode& n, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound) {
  constexpr size_t kMax = 16;
  vm::ErrorPtr link_error[kMax];
  const size_t links = std::min(n.fused_links.size(), kMax);
  bool failed = false;
  for (size_t l = 0; l < links; ++l) {
    const FusedLink& k = n.fused_links[l];
    for (int j = 0; j < k.num_operands && link_error[l] == nullptr; ++j) {
      const int operand = k.operands[j];
      if (operand < 0) {
        link_error[l] = link_error[-1 - operand];
        continue;
      }
      const auto i = static_cast<size_t>(operand);
      if (const vm::ErrorPtr& e = ErrorOf(n.reads[i], bound); e != nullptr) {
        link_error[l] = e;
      } else if (const ReadState r = ReadStateOf(n, i, bound); r != ReadState::kWritten) {
        link_error[l] = Refusal(r, static_cast<size_t>(j), n, i, k.op, stream);
      }
    }
    failed |= link_error[l] != nullptr;
  }
  if (!failed) return true;
  const vm::ErrorPtr first = [&] {
    for (size_t l = 0; l < links; ++l) {
      if (link_error[l] != nullptr) return link_error[l];
    }
    return vm::ErrorPtr();
  }();
  for (size_t l = 0; l < links; ++l) {
    const int out = n.fused_links[l].output;
    if (out < 0) continue;
    SetError(n.writes[static_cast<size_t>(out)], link_error[l] != nullptr ? link_error[l] : first,
             bound);
  }
  return false;
}

// The checked path, as OpCallPolicy::Compute: input by input, forward an
// error or refuse bytes nothing wrote; allocate bound outputs; after
// success, heal what a whole write covered and track what a write through a
// view of a bound storage covered.
bool Plan::RunSlow(PlanNode& n, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound) {
  auto overwritten = [&](size_t i) { return n.overwritten_mask.has(i); };
  if (!n.fused_links.empty()) {
    if (!RefuseFused(n, stream, bound)) return false;
  } else {
    for (size_t i = 0; i < n.reads.size(); ++i) {
      if (overwritten(i)) continue;
      if (const vm::ErrorPtr& e = ErrorOf(n.reads[i], bound); e != nullptr) {
        const vm::ErrorPtr forwarded = e;  // SetError may overwrite the one referred to
        for (int w : n.writes) SetError(w, forwarded, bound);
        return false;
      }
      const ReadState r = ReadStateOf(n, i, bound);
      if (r == ReadState::kWritten) [[likely]]
        continue;
      const vm::ErrorPtr e = Refusal(r, i, n, i, n.name, stream);
      for (int w : n.writes) SetError(w, e, bound);
      return false;
    }
  }
  uint64_t fresh = 0;  // bound writes whose storage this node allocates, by index
  for (size_t k = 0; k < n.writes.size(); ++k) {
    const Placement& pl = placement_[n.writes[k]];
    if (pl.kind != Placement::kBound) continue;
    if (!bound[pl.index]->allocated() && k < 64) fresh |= uint64_t{1} << k;
    absl::Status s = bound[pl.index]->EnsureAllocated(stream->allocator());
    if (!s.ok()) {
      Fail(n, stream, std::move(s), bound);
      return false;
    }
  }
  for (int w : n.writes) {
    if (placement_[w].kind == Placement::kArena && arenas_[placement_[w].index].base == nullptr &&
        arenas_[placement_[w].index].constant_bytes + arenas_[placement_[w].index].planned_bytes >
            0) {
      Fail(n, stream, absl::ResourceExhaustedError("the graph's arena could not be allocated"),
           bound);
      return false;
    }
  }
  for (auto& [op, slot, offset] : n.bound_patches) {
    op->data = At(bound[slot], offsets_[slot] + offset);
  }
  absl::Status s = Execute(n);
  if (!s.ok()) {
    Fail(n, stream, std::move(s), bound);
    return false;
  }
  // A write of a whole storage heals an error it carried; a write of part
  // of one (a view) heals nothing, as eagerly (OpCallPolicy::Compute). On a
  // bound input or parameter it also tracks the bytes written; the plan's
  // own storages were tracked at capture (Coverage).
  for (size_t k = 0; k < n.writes.size(); ++k) {
    const int w = n.writes[k];
    const Placement& pl = placement_[w];
    if (pl.kind == Placement::kBound && slots_[pl.index].kind != BufferKind::kIntermediate) {
      const internal::Operand& o = *n.write_operands[k];
      const auto begin = static_cast<size_t>(offsets_[pl.index] + o.offset);
      bound[pl.index]->NoteWritten(begin, begin + Bytes(o), k < 64 && ((fresh >> k) & 1));
    } else if (n.writes_whole[k]) {
      SetError(w, nullptr, bound);
    }
  }
  return true;
}

void Plan::AfterNode(PlanNode& n, vm::VmStream* stream) {
  if (!check_lifetimes_) [[likely]]
    return;
  for (int b : n.dying) {
    const Placement& pl = placement_[b];
    Arena& a = arenas_[pl.index];
    if (a.base == nullptr || !a.stream->policy()->device().is_cpu()) continue;
    std::memset(a.base + pl.offset, 0xFF, buffer_bytes_[b]);
  }
}

bool Plan::RunNodes(std::vector<PlanNode>& nodes, int begin, int end, bool slow,
                    vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound) {
  // One trace slice per node, inside the launch's compute slice, when a
  // trace session records (one relaxed load per segment otherwise).
  const bool traced = profiler::Enabled();
  for (int i = begin; i < end; ++i) {
    PlanNode& n = nodes[i];
    const int64_t start_ns = traced ? profiler::NowNs() : 0;
    if (slow) [[unlikely]] {
      RunSlow(n, stream, bound);
    } else {
      absl::Status s = Execute(n);
      if (!s.ok()) [[unlikely]] {
        Fail(n, stream, std::move(s), bound);
        slow = true;
      }
    }
    AfterNode(n, stream);
    if (traced) [[unlikely]]
      profiler::EmitSlice("graph", n.name, start_ns, profiler::NowNs());
  }
  return slow;
}

void Plan::RunSegment(int s, vm::VmStream* stream, absl::Span<vm::BlobObject* const> bound,
                      absl::Span<const int64_t> offsets) {
  const Segment& seg = segments_[s];
  offsets_ = offsets;
  bool arena_failed = false;
  AllocateArenas(stream, &arena_failed);
  if (s == 0 && poisoned_ > 0) {
    // A new run: its intermediates are fresh, as eagerly; an error one of
    // them kept from an earlier run is not this run's (a write through a
    // view heals nothing).
    for (int b : transient_) SetError(b, nullptr, bound);
  }
  bool slow = poisoned_ > 0 || arena_failed || seg.checked;
  for (const auto& [slot, written] : seg.bound) {
    vm::BlobObject* b = bound[slot];
    if (slots_[slot].kind == BufferKind::kIntermediate) {
      // An output the plan writes; one it only reads stays never written.
      if (slots_[slot].written && !b->EnsureAllocated(stream->allocator()).ok()) {
        slow = true;  // the writer reports the allocator's error
      }
    } else {
      slow |= b->partly_written();  // reads and writes check the bytes written
    }
    slow |= b->error() != nullptr || !b->allocated();
  }
  if (replays_[s].eligible && !slow && initialized_ && TryDeviceReplay(s, stream, bound)) return;
  for (const Segment::Patch& p : seg.patches) {
    p.operand->data = At(bound[p.slot], offsets[p.slot] + p.offset);
  }
  if (s == 0 && !initialized_) {
    // The init phase: the constants, until it has succeeded once. A failure
    // (a constant's kernel, the arena) poisons the constants, so the main
    // nodes reading them forward the error this run; the next run retries.
    bool ok = !arena_failed;
    for (PlanNode& n : init_) {
      for (int w : n.writes) SetError(w, nullptr, bound);
    }
    for (PlanNode& n : init_) ok &= RunSlow(n, stream, bound);
    initialized_ = ok;
    slow |= poisoned_ > 0;
  }
  RunNodes(nodes_, seg.begin, seg.end, slow, stream, bound);
  if (replays_[s].eligible && !slow && initialized_) ++replays_[s].warm_runs;  // device replay next
}

}  // namespace eagervm::graph
