// Plan::Build: the passes (dead code, constants), the segments and the
// memory layout. The executor is graph/plan_executor.cc.
#include "graph/plan.h"

#include <algorithm>

#include "base/str_cat.h"
#include "graph/fusion.h"
#include "graph/memory_plan.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"
#include "vm/written_ranges.h"

namespace eagervm::graph {

class PlanBuilder {
 public:
  PlanBuilder(Program program, const GraphOptions& options)
      : p_(std::move(program)), plan_(new Plan()), options_(options) {}

  absl::StatusOr<std::shared_ptr<Plan>> Build() {
    plan_->check_lifetimes_ = options_.check_lifetimes;
    plan_->captured_nodes_ = static_cast<int64_t>(p_.nodes.size());
    plan_->num_inputs_ = static_cast<int>(p_.input_metas.size());
    plan_->num_parameters_ = static_cast<int>(p_.parameters.size());
    if (options_.fuse) {
      const FusionStats f = FuseElementwiseChains(&p_, &plan_->fused_kernels_);
      plan_->fused_nodes_ = f.fused_nodes;
      plan_->fused_ops_ = f.fused_ops;
    }
    Accesses();
    EliminateDeadCode();
    FindConstants();
    BindSlots();
    Coverage();
    Segment();
    LayOutArenas();
    MakeNodes();
    return plan_;
  }

 private:
  bool intermediate(int b) const { return p_.buffers[b].kind == BufferKind::kIntermediate; }

  void Accesses() {
    reads_.resize(p_.nodes.size());
    writes_.resize(p_.nodes.size());
    for (size_t n = 0; n < p_.nodes.size(); ++n) {
      const Node& node = p_.nodes[n];
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        reads_[n].push_back(node.inputs[i].buffer);
        if (node.writes_input(i)) writes_[n].push_back(node.inputs[i].buffer);
      }
      for (const Value& v : node.outputs) writes_[n].push_back(v.buffer);
    }
    is_output_.assign(p_.buffers.size(), false);
    for (const Value& v : p_.outputs) is_output_[v.buffer] = true;
  }

  // A node is live if it is impure (OpOptions::pure: its effects are not
  // only its results), or writes something the caller sees (an output, an
  // input, a parameter) or something a live node reads later.
  void EliminateDeadCode() {
    std::vector<bool> needed = is_output_;
    live_.assign(p_.nodes.size(), false);
    for (size_t n = p_.nodes.size(); n-- > 0;) {
      if (!p_.nodes[n].call.pure) live_[n] = true;
      for (int w : writes_[n]) {
        if (!intermediate(w) || needed[w]) live_[n] = true;
      }
      if (!live_[n]) continue;
      for (int r : reads_[n]) needed[r] = true;
    }
  }

  // Constants: pure live nodes that touch only constant buffers, and constant
  // buffers: intermediates (not outputs) written only by constant nodes, all
  // before any other node reads them. The greatest such sets, found by
  // propagating non-constness once over the accesses (linear in them).
  void FindConstants() {
    const size_t nb = p_.buffers.size(), nn = p_.nodes.size();
    constant_node_.assign(nn, false);
    constant_buffer_.assign(nb, false);
    for (size_t b = 0; b < nb; ++b)
      constant_buffer_[b] = intermediate(static_cast<int>(b)) && !is_output_[b];
    std::vector<int> last_write(nb, -1), first_main_read(nb, static_cast<int>(nn));
    std::vector<std::vector<int>> touching(nb);  // live nodes, per buffer
    for (size_t n = 0; n < nn; ++n) {
      if (!live_[n]) continue;
      constant_node_[n] = p_.nodes[n].call.pure;
      for (int w : writes_[n]) last_write[w] = static_cast<int>(n), touching[w].push_back(n);
      for (int r : reads_[n]) touching[r].push_back(static_cast<int>(n));
    }
    std::vector<int> nodes, buffers;  // work lists: just became non-constant
    auto buffer_not_constant = [&](int b) {
      if (constant_buffer_[b]) constant_buffer_[b] = false, buffers.push_back(b);
    };
    auto node_not_constant = [&](int n) {
      for (int w : writes_[n]) buffer_not_constant(w);  // written by a main node
      for (int r : reads_[n]) {
        first_main_read[r] = std::min(first_main_read[r], n);
        if (last_write[r] > first_main_read[r]) buffer_not_constant(r);
      }
    };
    for (size_t n = 0; n < nn; ++n) {
      if (!live_[n]) continue;
      bool ok = constant_node_[n];
      for (int r : reads_[n]) ok &= constant_buffer_[r];
      for (int w : writes_[n]) ok &= constant_buffer_[w];
      if (!ok) constant_node_[n] = false, nodes.push_back(static_cast<int>(n));
    }
    while (!nodes.empty() || !buffers.empty()) {
      if (!nodes.empty()) {
        const int n = nodes.back();
        nodes.pop_back();
        node_not_constant(n);
        continue;
      }
      const int b = buffers.back();
      buffers.pop_back();
      for (int n : touching[b]) {
        if (constant_node_[n]) constant_node_[n] = false, nodes.push_back(n);
      }
    }
    for (size_t n = 0; n < nn; ++n) {
      if (!live_[n]) continue;
      (constant_node_[n] ? init_ : main_).push_back(static_cast<int>(n));
    }
  }

  // Inputs, then parameters, then the intermediates that are outputs.
  void BindSlots() {
    Plan& plan = *plan_;
    plan.placement_.resize(p_.buffers.size());
    plan.errors_.resize(p_.buffers.size());
    for (const Buffer& b : p_.buffers) plan.buffer_bytes_.push_back(b.nbytes);
    std::vector<int> order;
    for (int kind = 0; kind < 3; ++kind) {
      for (size_t b = 0; b < p_.buffers.size(); ++b) {
        const Buffer& buf = p_.buffers[b];
        const bool take = (kind == 0 && buf.kind == BufferKind::kInput) ||
                          (kind == 1 && buf.kind == BufferKind::kParameter) ||
                          (kind == 2 && buf.kind == BufferKind::kIntermediate && is_output_[b]);
        if (take) order.push_back(static_cast<int>(b));
      }
    }
    // Inputs and parameters keep their index as their slot.
    plan.slots_.resize(order.size());
    for (int b : order) {
      const Buffer& buf = p_.buffers[b];
      int slot;
      if (buf.kind == BufferKind::kInput)
        slot = buf.slot;
      else if (buf.kind == BufferKind::kParameter)
        slot = plan.num_inputs_ + buf.slot;
      else
        slot = plan.num_inputs_ + plan.num_parameters_ + static_cast<int>(output_buffers_.size());
      if (buf.kind == BufferKind::kIntermediate) output_buffers_.push_back(b);
      BoundSlot& s = plan.slots_[slot];
      s.kind = buf.kind;
      s.slot = buf.kind == BufferKind::kIntermediate ? -1 : buf.slot;
      s.nbytes = buf.nbytes;
      s.device = buf.device;
      plan.placement_[b] = Placement{Placement::kBound, slot, 0};
    }
    for (int n : main_) {
      for (int w : writes_[n]) {
        const Placement& pl = plan.placement_[w];
        if (pl.kind != Placement::kBound) continue;
        BoundSlot& s = plan.slots_[pl.index];
        if (!s.written) s.writer = p_.nodes[n].stream;
        s.written = true;
      }
    }
  }

  // Which bytes of each intermediate are written when a node reads them, as
  // eager execution tracks them per storage (vm::BlobObject::NoteWritten): a
  // whole write makes every byte readable; a write through a view into a
  // storage nothing wrote starts a list of written ranges. Each run's
  // intermediates are fresh and the nodes keep capture order, so this is
  // known now; a write that fails at run time leaves an error, which a
  // reader forwards before looking at bytes. Also the ranges of the outputs
  // the plan writes only in part.
  void Coverage() {
    enum : uint8_t { kNone, kPart, kWhole };
    const size_t nb = p_.buffers.size();
    std::vector<uint8_t> state(nb, kNone);
    std::vector<vm::WrittenRanges> ranges(nb);
    read_states_.resize(p_.nodes.size());
    auto bytes_of = [](const Value& v) {
      const auto begin = static_cast<size_t>(v.offset);
      return std::make_pair(begin, begin + Bytes(v.meta));
    };
    auto write = [&](const Value& v) {
      const int b = v.buffer;
      if (!intermediate(b) || state[b] == kWhole) return;
      const auto [begin, end] = bytes_of(v);
      if (begin == 0 && end >= p_.buffers[b].nbytes) {
        state[b] = kWhole;
        return;
      }
      if (state[b] == kNone) state[b] = kPart;  // this write allocates it, eagerly
      if (ranges[b].Add(begin, end, p_.buffers[b].nbytes)) state[b] = kWhole;
    };
    for (size_t n = 0; n < p_.nodes.size(); ++n) {
      if (!live_[n]) continue;
      const Node& node = p_.nodes[n];
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const Value& v = node.inputs[i];
        if (!intermediate(v.buffer) || node.overwrites_input(i)) continue;
        const auto [begin, end] = bytes_of(v);
        ReadState r = ReadState::kWritten;
        if (state[v.buffer] == kNone)
          r = ReadState::kNever;
        else if (state[v.buffer] == kPart && !ranges[v.buffer].Covers(begin, end))
          r = ReadState::kNotCovered;
        if (r == ReadState::kWritten) continue;
        read_states_[n].resize(node.inputs.size(), ReadState::kWritten);
        read_states_[n][i] = r;
      }
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.writes_input(i)) write(node.inputs[i]);
      }
      for (const Value& v : node.outputs) write(v);
    }
    for (int b : output_buffers_) {
      if (state[b] != kPart) continue;
      BoundSlot& slot = plan_->slots_[plan_->placement_[b].index];
      slot.partly_written = true;
      slot.written_ranges = ranges[b].ranges();
    }
  }

  void Segment() {
    Plan& plan = *plan_;
    // The last main node touching each bound slot: a segment ends there.
    std::vector<int> last(plan.slots_.size(), -1);
    for (size_t m = 0; m < main_.size(); ++m) {
      for (int b : reads_[main_[m]]) MarkLast(b, static_cast<int>(m), &last);
      for (int b : writes_[main_[m]]) MarkLast(b, static_cast<int>(m), &last);
    }
    std::vector<bool> ends_here(main_.size(), false);
    for (int m : last) {
      if (m >= 0) ends_here[m] = true;
    }
    MergeCheapCuts(&ends_here);
    bool cut = false;  // the previous node was the last access of a bound slot
    for (size_t m = 0; m < main_.size(); ++m) {
      vm::VmStream* s = p_.nodes[main_[m]].stream;
      if (plan.segments_.empty() || plan.segments_.back().stream != s || cut) {
        graph::Segment seg;
        seg.stream = s;
        seg.begin = static_cast<int>(m);
        plan.segments_.push_back(seg);
      }
      plan.segments_.back().end = static_cast<int>(m) + 1;
      cut = ends_here[m];
    }
  }
  // A cut is worth a segment (one more instruction per run, ~80 ns) only if
  // the work after it, up to the next cut, is more than a few small kernels:
  // releasing a tensor ahead of kernels the VM would itself run inline
  // (OpOptions::small_runs_inline, operands totalling at most
  // VmOptions::inline_max_bytes) gains eager code nothing it could measure.
  // So the cut moves to the next one: a step that updates P small parameters
  // at its end is 2 or 3 segments, not P + 2. Walks backward; `tail` is the
  // work between the cut at `m` and the next cut kept after it.
  void MergeCheapCuts(std::vector<bool>* ends_here) const {
    const int n = static_cast<int>(main_.size());
    size_t tail_bytes = 0;
    bool tail_cheap = true;
    for (int m = n - 1; m >= 0; --m) {
      const Node& node = p_.nodes[main_[m]];
      const bool boundary = m + 1 == n || p_.nodes[main_[m + 1]].stream != node.stream;
      if (boundary) {
        tail_bytes = 0;
        tail_cheap = true;
      } else if ((*ends_here)[m]) {
        const auto limit = static_cast<size_t>(node.stream->context()->options().inline_max_bytes);
        if (tail_cheap && tail_bytes <= limit) {
          (*ends_here)[m] = false;
        } else {
          tail_bytes = 0;
          tail_cheap = true;
        }
      }
      tail_cheap &= node.call.may_run_inline && node.call.kernel != nullptr;
      for (const Value& v : node.inputs) tail_bytes += Bytes(v.meta);
      for (const Value& v : node.outputs) tail_bytes += Bytes(v.meta);
    }
  }
  static size_t Bytes(const TensorMeta& m) {
    return static_cast<size_t>(m.shape.numel()) * SizeOf(m.dtype);
  }

  // Only a release that eager code may wait for ends a segment: an output
  // (readable once produced), an input (the caller's tensor, which eager code
  // may write right after Run) and a parameter the plan writes. A parameter
  // the plan only reads is released with the segment that reads it last, so
  // read-only parameters add no segments.
  void MarkLast(int buffer, int m, std::vector<int>* last) const {
    const Placement& pl = plan_->placement_[buffer];
    if (pl.kind != Placement::kBound) return;
    const BoundSlot& slot = plan_->slots_[pl.index];
    if (slot.kind == BufferKind::kParameter && !slot.written) return;
    (*last)[pl.index] = m;
  }

  int ArenaFor(vm::VmStream* s) {
    for (size_t a = 0; a < plan_->arenas_.size(); ++a) {
      if (plan_->arenas_[a].stream == s) return static_cast<int>(a);
    }
    Arena arena;
    arena.stream = s;
    arena.alignment = s->policy()->device().is_cpu() ? 64 : 512;
    arena.region.alignment = arena.alignment;
    plan_->arenas_.push_back(std::move(arena));
    return static_cast<int>(plan_->arenas_.size()) - 1;
  }

  void LayOutArenas() {
    Plan& plan = *plan_;
    const size_t nb = p_.buffers.size();
    // Constants: in the arena of the first segment's stream (the init phase
    // runs at the start of the first segment), laid out one after another.
    if (!plan.segments_.empty()) {
      const int a = ArenaFor(plan.segments_[0].stream);
      Arena& arena = plan.arenas_[a];
      // A buffer a constant reads but nothing wrote (an Empty tensor) is
      // placed too: that read is refused at run time (Coverage).
      auto place = [&](int b) {
        if (plan.placement_[b].kind != Placement::kNone) return;
        plan.placement_[b] = Placement{Placement::kArena, a, arena.constant_bytes};
        arena.constant_bytes += AlignUp(p_.buffers[b].nbytes, arena.alignment);
      };
      for (int n : init_) {
        for (int w : writes_[n]) place(w);
        for (int r : reads_[n]) place(r);
      }
    }
    // Intermediates: each in the arena of the stream that first touches it,
    // live over [first, last] main node.
    std::vector<int> first(nb, -1), last(nb, -1), arena_of(nb, -1);
    for (size_t m = 0; m < main_.size(); ++m) {
      const int n = main_[m];
      auto touch = [&](int b) {
        if (plan.placement_[b].kind != Placement::kNone) return;
        if (first[b] < 0) {
          first[b] = static_cast<int>(m);
          arena_of[b] = ArenaFor(p_.nodes[n].stream);
        }
        last[b] = static_cast<int>(m);
      };
      for (int b : reads_[n]) touch(b);
      for (int b : writes_[n]) touch(b);
    }
    for (size_t a = 0; a < plan.arenas_.size(); ++a) {
      Arena& arena = plan.arenas_[a];
      std::vector<Lifetime> values;
      std::vector<int> buffers;
      for (size_t b = 0; b < nb; ++b) {
        if (arena_of[b] != static_cast<int>(a)) continue;
        values.push_back(Lifetime{p_.buffers[b].nbytes, first[b], last[b]});
        buffers.push_back(static_cast<int>(b));
      }
      const MemoryPlan mp = PlanMemory(values, arena.alignment);
      arena.planned_bytes = mp.bytes;
      arena.lower_bound = mp.lower_bound;
      for (size_t v = 0; v < buffers.size(); ++v) {
        plan.placement_[buffers[v]] =
            Placement{Placement::kArena, static_cast<int>(a), arena.constant_bytes + mp.offsets[v]};
        plan.transient_.push_back(buffers[v]);
      }
    }
    last_main_use_ = std::move(last);
  }

  // The executor's nodes, their kernel arguments built once, and the lists
  // of operands to point at memory as it is bound.
  void MakeNodes() {
    Plan& plan = *plan_;
    plan.init_.resize(init_.size());
    plan.nodes_.resize(main_.size());
    for (size_t i = 0; i < init_.size(); ++i) {
      MakeNode(p_.nodes[init_[i]], init_[i], plan.segments_[0].stream, &plan.init_[i]);
    }
    for (size_t m = 0; m < main_.size(); ++m) {
      PlanNode& pn = plan.nodes_[m];
      MakeNode(p_.nodes[main_[m]], main_[m], p_.nodes[main_[m]].stream, &pn);
    }
    for (size_t b = 0; b < p_.buffers.size(); ++b) {
      if (last_main_use_[b] >= 0 && plan.placement_[b].kind == Placement::kArena) {
        plan.nodes_[last_main_use_[b]].dying.push_back(static_cast<int>(b));
      }
    }
    for (graph::Segment& seg : plan.segments_) {
      bool all_inline = true, has_host_write = false, never_blocks = true;
      size_t bytes = 0;
      for (int m = seg.begin; m < seg.end; ++m) {
        const Node& node = p_.nodes[main_[m]];
        PlanNode& pn = plan.nodes_[m];
        all_inline &= node.call.may_run_inline || pn.kernel == nullptr;
        has_host_write |= pn.kernel == nullptr;
        never_blocks &= node.call.never_blocks || pn.kernel == nullptr;
        for (const auto& [op, slot, offset] : pn.bound_patches) {
          auto it = std::find_if(seg.bound.begin(), seg.bound.end(),
                                 [slot = slot](const auto& e) { return e.first == slot; });
          if (it == seg.bound.end()) it = seg.bound.emplace(seg.bound.end(), slot, false);
          seg.patches.push_back({op, slot, offset, static_cast<int>(it - seg.bound.begin())});
        }
        for (int w : writes_[main_[m]]) {
          const Placement& pl = plan.placement_[w];
          if (pl.kind != Placement::kBound) continue;
          for (auto& e : seg.bound) {
            if (e.first == pl.index) e.second = true;
          }
        }
        seg.checked |= !pn.read_states.empty();
        for (const internal::Operand& o : pn.args.inputs) bytes += Bytes(o);
        for (const internal::Operand& o : pn.args.outputs) bytes += Bytes(o);
      }
      if (all_inline) seg.inline_bytes = bytes;
      if (never_blocks && seg.stream->policy()->device().is_cpu()) seg.donatable_bytes = bytes;
      DeviceReplay replay;
      replay.eligible = options_.device_graphs && !options_.check_lifetimes &&
                        !seg.stream->policy()->device().is_cpu() && !has_host_write;
      plan.replays_.push_back(std::move(replay));
    }
  }
  static size_t Bytes(const internal::Operand& o) { return Bytes(*o.meta); }

  void MakeNode(const Node& node, int n, vm::VmStream* stream, PlanNode* out) {
    Plan& plan = *plan_;
    out->name = node.name();
    out->kernel = node.call.kernel;
    out->host_write = node.host_write;
    out->fused_links = node.fused_links;
    out->reads = reads_[n];
    out->read_states = read_states_[n];
    out->overwritten_mask = node.call.overwritten_mask;
    out->writes = writes_[n];
    auto whole = [&](const Value& v) {
      return v.offset == 0 && static_cast<size_t>(v.meta.shape.numel()) * SizeOf(v.meta.dtype) ==
                                  p_.buffers[v.buffer].nbytes;
    };
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.writes_input(i)) out->writes_whole.push_back(whole(node.inputs[i]));
    }
    for (const Value& v : node.outputs) out->writes_whole.push_back(whole(v));
    internal::KernelArgs& args = out->args;
    args.mutated_mask = node.call.mutated_mask;
    args.attrs = node.attrs;
    args.stream = stream;
    for (int i = 0; i < node.num_scalars; ++i) args.scalars[i] = node.scalars[i];
    // The plan node keeps the metas (it never moves once made: the arena
    // and bound patches point into it as well).
    const auto operands = static_cast<uint32_t>(node.inputs.size() + node.outputs.size());
    for (const Value& v : node.inputs) {
      args.inputs.push_back(internal::Operand{
          nullptr, internal::StableMeta(&args, v.meta, operands), v.offset, nullptr});
    }
    for (const Value& v : node.outputs) {
      args.outputs.push_back(internal::Operand{
          nullptr, internal::StableMeta(&args, v.meta, operands), v.offset, nullptr});
    }
    out->arena = ArenaFor(stream);
    args.temp_region = nullptr;  // set below, once the arena vector is final
    auto place = [&](const Value& v, internal::Operand* op) {
      const Placement& pl = plan.placement_[v.buffer];
      if (pl.kind == Placement::kBound) {
        out->bound_patches.emplace_back(op, pl.index, v.offset);
      } else {
        plan.arenas_[pl.index].patches.emplace_back(op, pl.offset + static_cast<size_t>(v.offset));
      }
    };
    for (size_t i = 0; i < node.inputs.size(); ++i) place(node.inputs[i], &args.inputs[i]);
    for (size_t i = 0; i < node.outputs.size(); ++i) place(node.outputs[i], &args.outputs[i]);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.writes_input(i)) out->write_operands.push_back(&args.inputs[i]);
    }
    for (internal::Operand& o : args.outputs) out->write_operands.push_back(&o);
  }

 public:
  void Finish() {
    Plan& plan = *plan_;
    for (PlanNode& n : plan.init_) n.args.temp_region = &plan.arenas_[n.arena].region;
    for (PlanNode& n : plan.nodes_) n.args.temp_region = &plan.arenas_[n.arena].region;
  }

 private:
  Program p_;
  std::shared_ptr<Plan> plan_;
  GraphOptions options_;
  std::vector<std::vector<int>> reads_, writes_;
  std::vector<std::vector<ReadState>> read_states_;  // per node (Coverage)
  std::vector<bool> is_output_, live_, constant_node_, constant_buffer_;
  std::vector<int> init_, main_;  // program node indices, in capture order
  std::vector<int> output_buffers_;
  std::vector<int> last_main_use_;
};

absl::StatusOr<std::shared_ptr<Plan>> Plan::Build(Program program, const GraphOptions& options) {
  PlanBuilder b(std::move(program), options);
  absl::StatusOr<std::shared_ptr<Plan>> plan = b.Build();
  if (plan.ok()) b.Finish();
  return plan;
}

GraphStats Plan::stats() const {
  GraphStats s;
  s.captured_nodes = captured_nodes_;
  s.nodes = static_cast<int64_t>(nodes_.size());
  s.constant_nodes = static_cast<int64_t>(init_.size());
  s.fused_nodes = fused_nodes_;
  s.fused_ops = fused_ops_;
  s.segments = static_cast<int64_t>(segments_.size());
  for (const Arena& a : arenas_) {
    s.arena_bytes += static_cast<int64_t>(a.planned_bytes);
    s.lower_bound_bytes += static_cast<int64_t>(a.lower_bound);
    s.constant_bytes += static_cast<int64_t>(a.constant_bytes);
  }
  s.arena_bytes += temp_bytes_.load(std::memory_order_relaxed);
  s.device_graph_runs = device_graph_runs_.load(std::memory_order_relaxed);
  s.device_graph_fallbacks = device_graph_fallbacks_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace eagervm::graph
