// FuseElementwiseChains: finds chains of float32 elementwise nodes and
// replaces each by one node running a small interpreter over the chain,
// tile by tile (graph/fusion.h).
#include "graph/fusion.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include "base/arith.h"
#include "vm/streams/stream_policy.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::graph {
namespace {

enum class OpKind : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kRelu, kNeg };

struct OpInfo {
  const char* name;
  OpKind op;
  bool with_scalar;  // Op(x, scalar(0))
  bool unary;
};

constexpr OpInfo kOps[] = {
    {"Add", OpKind::kAdd, false, false},      {"Sub", OpKind::kSub, false, false},
    {"Mul", OpKind::kMul, false, false},      {"Div", OpKind::kDiv, false, false},
    {"Maximum", OpKind::kMax, false, false},  {"AddScalar", OpKind::kAdd, true, false},
    {"SubScalar", OpKind::kSub, true, false}, {"MulScalar", OpKind::kMul, true, false},
    {"DivScalar", OpKind::kDiv, true, false}, {"Relu", OpKind::kRelu, false, true},
    {"Neg", OpKind::kNeg, false, true},
};

// An operand of a link.
struct Ref {
  enum Kind : uint8_t {
    kFull,      // input `index`, one element per output element
    kScalar,    // input `index`, one element broadcast to all
    kRow,       // input `index`, a row broadcast along the output's last dim
    kLink,      // the result of link `index`
    kConstant,  // `constant` (a Scalar op's scalar, converted as its kernel does)
  } kind = kFull;
  int index = 0;
  float constant = 0;
};

struct Link {
  OpKind op;
  Ref a, b;         // b: unused by unary ops
  int output = -1;  // the fused node's output it is written to; -1: a tile only
};

constexpr int64_t kTile = 512;  // floats: 2 KiB per link, all of them in L1
constexpr size_t kMaxLinks = 8;
constexpr size_t kMaxInputs = 2 * kMaxLinks;

// out[i] = f(a[i * sa], b[i * sb]) for i < n; sa and sb are 0 or 1. One
// loop per stride pattern, as the kernels' row loops.
template <typename F>
inline void Row(float* out, const float* a, int64_t sa, const float* b, int64_t sb, int64_t n,
                F f) {
  if (sa != 0 && sb != 0) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (sa != 0) {
    const float y = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], y);
  } else if (sb != 0) {
    const float x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(x, b[i]);
  } else {
    const float v = f(a[0], b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

// The unfused CPU kernels' scalar functions on float32 (base/arith.h, the
// same functions: the same bits per element).
void Apply(OpKind op, float* out, const float* a, int64_t sa, const float* b, int64_t sb,
           int64_t n) {
  switch (op) {
    case OpKind::kAdd:
      return Row(out, a, sa, b, sb, n, [](float x, float y) { return base::WrapAdd(x, y); });
    case OpKind::kSub:
      return Row(out, a, sa, b, sb, n, [](float x, float y) { return base::WrapSub(x, y); });
    case OpKind::kMul:
      return Row(out, a, sa, b, sb, n, [](float x, float y) { return base::WrapMul(x, y); });
    case OpKind::kDiv:
      return Row(out, a, sa, b, sb, n, [](float x, float y) { return base::WrapDiv(x, y); });
    case OpKind::kMax:
      return Row(out, a, sa, b, sb, n, [](float x, float y) { return base::MaxOf(x, y); });
    case OpKind::kRelu:  // as Relu's kernel: x < 0 ? 0 : x (keeps NaN)
      return Row(out, a, sa, a, sa, n, [](float x, float) { return x < 0.0f ? 0.0f : x; });
    case OpKind::kNeg:  // as Neg's kernel: 0 - x (+0 for +0)
      return Row(out, a, sa, a, sa, n, [](float x, float) { return base::WrapSub(0.0f, x); });
  }
}

class Chain {
 public:
  std::vector<Link> links;
  int64_t numel = 0;
  int64_t row = 1;  // a kRow operand's length: the output's last dim

  absl::Status Run(KernelContext& ctx) const {
    const float* in[kMaxInputs];
    float* out[kMaxLinks];
    for (int i = 0; i < ctx.num_inputs(); ++i) in[i] = static_cast<const float*>(ctx.raw_input(i));
    for (int i = 0; i < ctx.num_outputs(); ++i) out[i] = ctx.output<float>(i);
    alignas(64) float tiles[kMaxLinks][kTile];
    float* result[kMaxLinks];
    for (int64_t t = 0; t < numel; t += kTile) {
      const int64_t len = std::min(kTile, numel - t);
      for (size_t l = 0; l < links.size(); ++l) {
        const Link& k = links[l];
        float* o = k.output >= 0 ? out[k.output] + t : tiles[l];
        result[l] = o;
        if (k.a.kind != Ref::kRow && k.b.kind != Ref::kRow) {
          int64_t sa = 0, sb = 0;
          const float* a = At(k.a, in, result, t, 0, &sa);
          const float* b = At(k.b, in, result, t, 0, &sb);
          Apply(k.op, o, a, sa, b, sb, len);
          continue;
        }
        for (int64_t pos = 0; pos < len;) {  // piece by piece, within one row
          const int64_t n = std::min(len - pos, row - (t + pos) % row);
          int64_t sa = 0, sb = 0;
          const float* a = At(k.a, in, result, t, pos, &sa);
          const float* b = At(k.b, in, result, t, pos, &sb);
          Apply(k.op, o + pos, a, sa, b, sb, n);
          pos += n;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  // Where operand `r` of the element at t + pos is, and its step.
  const float* At(const Ref& r, const float* const* in, float* const* result, int64_t t,
                  int64_t pos, int64_t* step) const {
    switch (r.kind) {
      case Ref::kFull:
        *step = 1;
        return in[r.index] + t + pos;
      case Ref::kScalar:
        *step = 0;
        return in[r.index];
      case Ref::kRow:
        *step = 1;
        return in[r.index] + (t + pos) % row;
      case Ref::kLink:
        *step = 1;
        return result[r.index] + pos;
      case Ref::kConstant:
        *step = 0;
        return &r.constant;
    }
    return nullptr;
  }
};

size_t Bytes(const TensorMeta& m) { return static_cast<size_t>(m.shape.numel()) * SizeOf(m.dtype); }

class Fuser {
 public:
  Fuser(Program* p, std::vector<std::unique_ptr<KernelFn>>* kernels) : p_(*p), kernels_(kernels) {
    const size_t nb = p_.buffers.size();
    readers_.assign(nb, 0);
    writers_.assign(nb, 0);
    is_output_.assign(nb, false);
    for (const Value& v : p_.outputs) is_output_[v.buffer] = true;
    // Which nodes depend on an input or a parameter (or are impure): a chain
    // never mixes them with constants, which the plan hoists out of the runs.
    std::vector<bool> variable(nb);
    for (size_t b = 0; b < nb; ++b) variable[b] = p_.buffers[b].kind != BufferKind::kIntermediate;
    for (const Node& node : p_.nodes) {
      bool v = !node.call.pure;
      for (const Value& in : node.inputs) v = v || variable[in.buffer];
      variable_node_.push_back(v);
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.writes_input(i) && v) variable[node.inputs[i].buffer] = true;
      }
      for (const Value& out : node.outputs) variable[out.buffer] = variable[out.buffer] || v;
    }
    for (const Node& node : p_.nodes) {
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const int b = node.inputs[i].buffer;
        bool seen = false;  // count each node once per buffer
        for (size_t j = 0; j < i; ++j) seen |= node.inputs[j].buffer == b;
        if (!seen) ++readers_[b];
        if (node.writes_input(i)) ++writers_[b];
      }
      for (const Value& v : node.outputs) ++writers_[v.buffer];
    }
  }

  FusionStats Run() {
    FusionStats stats;
    std::vector<Node> nodes;
    nodes.reserve(p_.nodes.size());
    size_t n = 0;
    while (n < p_.nodes.size()) {
      const size_t end = ChainEnd(n);
      if (end - n < 2) {
        nodes.push_back(std::move(p_.nodes[n++]));
        continue;
      }
      nodes.push_back(MakeFused(n, end));
      ++stats.fused_nodes;
      stats.fused_ops += static_cast<int>(end - n);
      n = end;
    }
    p_.nodes = std::move(nodes);
    return stats;
  }

 private:
  // The op node `n` is, if it can be a link: a float32 CPU kernel of one of
  // kOps (the built-in's: custom ops cannot take a built-in's name), contiguous operands, writing
  // one fresh intermediate whole.
  const OpInfo* Match(size_t n) const {
    const Node& node = p_.nodes[n];
    if (node.call.kernel == nullptr || !node.call.pure || node.outputs.size() != 1) return nullptr;
    if (node.attrs != nullptr && !node.attrs->empty()) return nullptr;  // a strided operand
    if (node.stream == nullptr || !node.stream->policy()->device().is_cpu()) return nullptr;
    const OpInfo* info = nullptr;
    for (const OpInfo& op : kOps) {  // built-in names are the registry's own
      if (std::strcmp(node.name(), op.name) == 0) info = &op;
    }
    if (info == nullptr || !node.call.mutated_mask.empty()) return nullptr;
    if (info->with_scalar && node.num_scalars < 1) return nullptr;
    if (node.inputs.size() != (info->unary || info->with_scalar ? 1u : 2u)) return nullptr;
    const Value& out = node.outputs[0];
    const Buffer& buf = p_.buffers[out.buffer];
    if (buf.kind != BufferKind::kIntermediate || writers_[out.buffer] != 1 || out.offset != 0 ||
        Bytes(out.meta) != buf.nbytes || out.meta.dtype != DType::kFloat32 ||
        out.meta.shape.numel() == 0) {
      return nullptr;
    }
    for (const Value& v : node.inputs) {
      if (v.meta.dtype != DType::kFloat32) return nullptr;
    }
    return info;
  }

  // Whether link `l` (node first + l) of the chain [first, end) has readers
  // outside it (or is an output): its result must be written out.
  bool Escapes(size_t first, size_t end, size_t l) const {
    const int b = p_.nodes[first + l].outputs[0].buffer;
    if (is_output_[b]) return true;
    int inside = 0;
    for (size_t m = first + l + 1; m < end; ++m) {
      bool reads = false;
      for (const Value& v : p_.nodes[m].inputs) reads |= v.buffer == b;
      inside += reads;
    }
    return inside < readers_[b];
  }

  // How operand `v` of a link whose output is `shape` is read, or false if
  // the chain cannot read it (a view of a link, a general broadcast).
  bool Classify(const Value& v, size_t first, size_t node, const Shape& shape, Ref* r) const {
    for (size_t m = first; m < node; ++m) {
      const Value& o = p_.nodes[m].outputs[0];
      if (v.buffer != o.buffer) continue;
      if (v.offset != 0 || v.meta.shape != shape) return false;
      r->kind = Ref::kLink;
      r->index = static_cast<int>(m - first);
      return true;
    }
    const int64_t n = shape.numel(), k = v.meta.shape.numel();
    if (k == n) {
      r->kind = Ref::kFull;  // broadcasting only adds size-1 dims: the same layout
    } else if (k == 1) {
      r->kind = Ref::kScalar;
    } else if (shape.rank() >= 1 && v.meta.shape.rank() >= 1 &&
               v.meta.shape.rank() <= shape.rank() && k == shape[shape.rank() - 1] &&
               v.meta.shape[v.meta.shape.rank() - 1] == k) {
      r->kind = Ref::kRow;
    } else {
      return false;
    }
    return true;
  }

  // The end of the longest chain starting at node `first` (first + 1: none).
  size_t ChainEnd(size_t first) const {
    if (Match(first) == nullptr) return first + 1;
    const Node& head = p_.nodes[first];
    const Shape& shape = head.outputs[0].meta.shape;
    for (const Value& v : head.inputs) {
      Ref r;
      if (!Classify(v, first, first, shape, &r)) return first + 1;
    }
    size_t end = first + 1;
    while (end < p_.nodes.size() && end - first < kMaxLinks) {
      const Node& node = p_.nodes[end];
      if (Match(end) == nullptr || node.stream != head.stream ||
          node.outputs[0].meta.shape != shape || variable_node_[end] != variable_node_[first]) {
        break;
      }
      bool linked = false, fresh_operand = false, ok = true;
      for (const Value& v : node.inputs) {
        Ref r;
        ok &= Classify(v, first, end, shape, &r);
        linked |= r.kind == Ref::kLink && r.index == static_cast<int>(end - 1 - first);
        fresh_operand |= r.kind != Ref::kLink;
      }
      if (!ok || !linked) break;
      // An operand first read after a result that is written out could
      // carry an error that eagerly poisons only the later links, while the
      // earlier result is computed: the fused node computes all or none.
      bool written_out = false;
      for (size_t l = 0; l + first < end; ++l) written_out |= Escapes(first, end + 1, l);
      if (fresh_operand && written_out) break;
      ++end;
    }
    return end;
  }

  Node MakeFused(size_t first, size_t end) {
    auto chain = std::make_shared<Chain>();
    const Node& head = p_.nodes[first];
    const Shape& shape = head.outputs[0].meta.shape;
    chain->numel = shape.numel();
    chain->row = shape.rank() >= 1 ? std::max<int64_t>(shape[shape.rank() - 1], 1) : 1;
    Node fused;
    fused.stream = head.stream;
    fused.call.name = "FusedElementwise";
    fused.call.pure = true;
    fused.call.may_run_inline = true;
    fused.call.never_blocks = true;
    for (size_t m = first; m < end; ++m) {
      const Node& node = p_.nodes[m];
      const OpInfo& info = *Match(m);
      fused.call.may_run_inline &= node.call.may_run_inline;
      fused.call.never_blocks &= node.call.never_blocks;
      Link link;
      link.op = info.op;
      FusedLink named;
      named.op = node.name();
      named.num_operands = static_cast<int>(node.inputs.size());
      Ref* refs[2] = {&link.a, &link.b};
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const Value& v = node.inputs[i];
        (void)Classify(v, first, m, shape, refs[i]);
        if (refs[i]->kind == Ref::kLink) {
          named.operands[i] = -1 - refs[i]->index;
          continue;
        }
        int index = -1;  // the same operand twice is one input
        for (size_t j = 0; j < fused.inputs.size(); ++j) {
          const Value& u = fused.inputs[j];
          if (u.buffer == v.buffer && u.offset == v.offset && u.meta == v.meta) {
            index = static_cast<int>(j);
          }
        }
        if (index < 0) {
          index = static_cast<int>(fused.inputs.size());
          fused.inputs.push_back(v);
        }
        refs[i]->index = index;
        named.operands[i] = index;
      }
      if (info.with_scalar) {  // as WithScalar's kernel: scalar(0).to<float>()
        link.b.kind = Ref::kConstant;
        link.b.constant = node.scalars[0].to<float>();
      } else if (info.unary) {
        link.b = link.a;
      }
      if (m + 1 == end || Escapes(first, end, m - first)) {
        link.output = static_cast<int>(fused.outputs.size());
        fused.outputs.push_back(node.outputs[0]);
      }
      named.output = link.output;
      chain->links.push_back(link);
      fused.fused_links.push_back(named);
    }
    kernels_->push_back(
        std::make_unique<KernelFn>([chain = std::shared_ptr<const Chain>(std::move(chain))](
                                       KernelContext& ctx) { return chain->Run(ctx); }));
    fused.call.kernel = kernels_->back().get();
    return fused;
  }

  Program& p_;
  std::vector<std::unique_ptr<KernelFn>>* kernels_;
  std::vector<int> readers_, writers_;  // per buffer: nodes reading, writing it
  std::vector<bool> is_output_;
  std::vector<bool> variable_node_;  // per node: reads an input or a parameter, or is impure
};

}  // namespace

FusionStats FuseElementwiseChains(Program* p, std::vector<std::unique_ptr<KernelFn>>* kernels) {
  return Fuser(p, kernels).Run();
}

}  // namespace eagervm::graph
