// A random graph-vs-eager program (issue 27), shared by
// tests/graph_views_differential_test.cc (fixed seeds) and
// fuzz/graph_fuzzer.cc (libFuzzer bytes). One list of steps over a pool of
// [4] float32 tensors is interpreted eagerly and inside Graph::Capture; the
// graph then runs k times, and eagerly the function is called k times, on
// the same inputs, each run binding them in one of several ways (a whole
// tensor, a Slice of a bigger tensor, a Reshape view, the same tensor passed
// twice, a parameter, two overlapping views of a parameter). Some storages
// are written only in part, through views (an Empty tensor made inside the
// function, a parameter never written before): reading bytes nothing wrote
// is an error in both worlds. Between runs eager code changes the
// parameters, and writes more of the partly written one. After every run: outputs, parameters,
// inputs and the side-effect counters of the impure custom ops must be equal, bitwise, errors
// included.
#ifndef EAGERVM_TESTS_GRAPH_PROGRAM_H_
#define EAGERVM_TESTS_GRAPH_PROGRAM_H_

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm::testing {

// The side effects of graph_prog.Log and the readings of graph_prog.Sensor,
// per world (attr "world": 0 eager, 1 graph).
inline std::atomic<int64_t> g_graph_prog_log[2];
inline std::atomic<int64_t> g_graph_prog_sensor[2];

inline void RegisterGraphProgramOps() {
  static const bool once = [] {
    auto same = [](const std::vector<TensorMeta>& in,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; };
    auto world = [](KernelContext& ctx) {
      return static_cast<int>(std::get<int64_t>(ctx.attrs().at("world")));
    };
    // Impure: counts its calls, copies its input.
    (void)RegisterOp("graph_prog.Log", same);
    (void)RegisterKernel("graph_prog.Log", DeviceType::kCPU, [world](KernelContext& ctx) {
      g_graph_prog_log[world(ctx)].fetch_add(1);
      std::memcpy(ctx.raw_output(0), ctx.raw_input(0), 4 * sizeof(float));
      return absl::OkStatus();
    });
    // Impure, no inputs: 1, 2, 3, ... per world.
    (void)RegisterOp(
        "graph_prog.Sensor",
        [](const std::vector<TensorMeta>&,
           const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
          return std::vector<TensorMeta>{TensorMeta{Shape({4}), DType::kFloat32, Device::Cpu()}};
        });
    (void)RegisterKernel("graph_prog.Sensor", DeviceType::kCPU, [world](KernelContext& ctx) {
      const auto v = static_cast<float>(g_graph_prog_sensor[world(ctx)].fetch_add(1) + 1);
      for (int i = 0; i < 4; ++i) ctx.output<float>(0)[i] = v;
      return absl::OkStatus();
    });
    // Impure, fails when x[0] < 0, else copies.
    (void)RegisterOp("graph_prog.Checked", same);
    (void)RegisterKernel("graph_prog.Checked", DeviceType::kCPU, [](KernelContext& ctx) {
      const float* x = ctx.input<float>(0);
      if (x[0] < 0) return absl::InvalidArgumentError("x[0] is negative");
      std::memcpy(ctx.raw_output(0), x, 4 * sizeof(float));
      return absl::OkStatus();
    });
    // Pure, fails when x[1] < -1: may be dropped when unused (as documented).
    OpOptions pure;
    pure.pure = true;
    (void)RegisterOp("graph_prog.PureChecked", same, pure);
    (void)RegisterKernel("graph_prog.PureChecked", DeviceType::kCPU, [](KernelContext& ctx) {
      const float* x = ctx.input<float>(0);
      if (x[1] < -1) return absl::InvalidArgumentError("x[1] below -1");
      std::memcpy(ctx.raw_output(0), x, 4 * sizeof(float));
      return absl::OkStatus();
    });
    return true;
  }();
  (void)once;
}

struct GraphStep {
  int op, a, b;
  float scalar;
  int range = 0;  // the elements a write through a view covers (kGraphRanges)
};

// [begin, end) of a [4] tensor that a write through a view covers.
inline constexpr int kGraphRanges[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3},
                                          {1, 4}, {2, 4}, {3, 4}, {2, 3}, {0, 4}};

struct GraphProgramSpec {
  std::vector<GraphStep> steps;
  int outputs[2] = {0, 1};
  int runs = 3;
  std::vector<int> bindings;  // per run: how the inputs are passed (Bind)
  std::vector<float> seeds;   // per run: input values
};

inline GraphProgramSpec GenerateGraphProgram(ChoiceSource& c, int max_steps) {
  GraphProgramSpec spec;
  const int n = 1 + static_cast<int>(c.Below(max_steps));
  for (int i = 0; i < n; ++i) {
    GraphStep s;
    s.op = static_cast<int>(c.Below(22));
    s.a = static_cast<int>(c.Below(1000));
    s.b = static_cast<int>(c.Below(1000));
    s.scalar = static_cast<float>(static_cast<int>(c.Below(9)) - 4) * 0.5f;
    s.range = static_cast<int>(c.Below(10));
    spec.steps.push_back(s);
    if (c.exhausted()) break;
  }
  spec.outputs[0] = static_cast<int>(c.Below(1000));
  spec.outputs[1] = static_cast<int>(c.Below(1000));
  spec.runs = 1 + static_cast<int>(c.Below(4));
  for (int r = 0; r < spec.runs; ++r) {
    spec.bindings.push_back(static_cast<int>(c.Below(6)));
    spec.seeds.push_back(static_cast<float>(static_cast<int>(c.Below(7)) - 3));
  }
  return spec;
}

// The function both worlds run. The pool starts with the two inputs and
// views of the parameters; every value is a [4] float32.
inline std::vector<Tensor> InterpretGraphProgram(const GraphProgramSpec& spec,
                                                 const std::vector<Tensor>& in, const Tensor& p0,
                                                 const Tensor& p1, const Tensor& p2,
                                                 int64_t world) {
  std::vector<Tensor> pool = {
      in[0], in[1], p0.Slice(0, 4).Reshape({4}), p0.Slice(4, 8).Reshape({4}), p1, p2};
  const Attrs w = {{"world", world}};
  for (const GraphStep& s : spec.steps) {
    const Tensor a = pool[s.a % pool.size()];  // copies: pool grows below
    const Tensor b = pool[s.b % pool.size()];
    const int lo = kGraphRanges[s.range][0], hi = kGraphRanges[s.range][1];
    auto first = [](absl::StatusOr<TensorList> r) {
      return r.ok() ? (*r)[0] : Tensor::Error(r.status());
    };
    switch (s.op) {
      case 0:
        pool.push_back(ops::Add(a, b));
        break;
      case 1:
        pool.push_back(ops::MulScalar(a, s.scalar));
        break;
      case 2:
        (void)ops::AddInplace(a, b);
        break;
      case 3:
        (void)ops::MulScalarInplace(a, s.scalar);
        break;
      case 4:
        pool.push_back(ops::Tanh(a));
        break;
      case 5:
        (void)ops::CopyInto(a, b);
        break;
      case 6:
        pool.push_back(first(ops::Call("graph_prog.Log", {a}, w)));
        break;
      case 7:
        pool.push_back(first(ops::Call("graph_prog.Checked", {a})));
        break;
      case 8:
        pool.push_back(first(ops::Call("graph_prog.Sensor", {}, w)));
        break;
      case 9:
        pool.push_back(first(ops::Call("graph_prog.PureChecked", {a})));
        break;
      case 10:
        pool.push_back(a.Reshape({2, 2}).Reshape({4}));
        break;  // a view
      case 11:
        (void)ops::FillInplace(a, s.scalar);
        break;
      case 12:
        pool.push_back(ops::Sub(a, Full({4}, s.scalar, DType::kFloat32)));
        break;
      case 13: {  // a storage made here, written only through a view
        Tensor t = Empty({4}, DType::kFloat32);
        (void)ops::FillInplace(t.Slice(lo, hi), s.scalar);
        pool.push_back(t);
        break;
      }
      case 14:  // a write through a view, into anything (an input, a parameter)
        (void)ops::FillInplace(a.Slice(lo, hi), s.scalar);
        break;
      case 15:
        (void)ops::CopyInto(a.Slice(lo, hi), b.Slice(lo, hi));
        break;
      // Strided views of a value seen as [2, 2]: read by an op, and written.
      case 17:  // a transposed view read natively (Add) and through a copy (Softmax)
        pool.push_back(ops::Add(a.Reshape({2, 2}).T(), b.Reshape({2, 2})).Reshape({4}));
        pool.push_back(ops::Softmax(a.Reshape({2, 2}).T(), 1).Reshape({4}));
        break;
      case 18:  // a write through a transposed view
        (void)ops::AddInplace(a.Reshape({2, 2}).T(), b.Reshape({2, 2}));
        break;
      case 19:  // a copy between column slices (Slice on axis 1)
        (void)ops::CopyInto(a.Reshape({2, 2}).Slice(1, lo % 2, 2),
                            b.Reshape({2, 2}).Permute({1, 0}).Slice(1, lo % 2, 2));
        break;
      case 20:  // a unary op and MatMul on permuted / transposed views
        pool.push_back(ops::Tanh(a.Reshape({2, 2}).Permute({1, 0})).Reshape({4}));
        pool.push_back(ops::MatMul(a.Reshape({2, 2}).T(), b.Reshape({2, 2})).Reshape({4}));
        break;
      case 21:  // a fill of one column (a strided write covering part of the storage)
        (void)ops::FillInplace(a.Reshape({2, 2}).Slice(1, hi % 2, hi % 2 + 1), s.scalar);
        break;
      default:  // never written: reading it is an error
        pool.push_back(Empty({4}, DType::kFloat32));
        break;
    }
  }
  return {pool[spec.outputs[0] % pool.size()], pool[spec.outputs[1] % pool.size()]};
}

// What one world observes of a tensor: its values, or "error: <message>".
// An op's "input <k> " is dropped from the message: where an in-place op
// reads a graph input, the plan stages that input through a copy (it may
// overlap once bound, docs/ops.md), and a failure reading it then names the
// staging copy's input 0 where eager, which stages only real overlaps,
// names the op's own input k. The op, the shape and the reason stay.
inline std::string Observe(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  if (!v.ok()) {
    std::string m(v.status().message());
    if (size_t at = m.find(": input "); at != std::string::npos) {
      size_t end = m.find(' ', at + 8);
      if (end != std::string::npos) m.erase(at + 2, end + 1 - (at + 2));
    }
    return "error: " + m;
  }
  std::string s;
  for (float x : *v) {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    s += std::to_string(bits) + " ";
  }
  return s;
}

// One world's state: its parameters, and the storage its inputs come from.
struct GraphWorld {
  Tensor p0 = FromVector<float>({1, -1, 0.5f, 2, -2, 0.25f, 3, -0.5f}, {8});
  Tensor p1 = FromVector<float>({0.5f, 1, -1, 2}, {4});
  Tensor p2 = Empty({4}, DType::kFloat32);  // written in part, by the program and between runs
  // The inputs of run `r`, bound as spec.bindings[r] says.
  std::vector<Tensor> Bind(const GraphProgramSpec& spec, int r, Tensor* big) {
    const float v = spec.seeds[r];
    std::vector<float> values(12);
    for (int i = 0; i < 12; ++i) values[i] = v + 0.25f * static_cast<float>(i % 5) - 0.5f;
    *big = FromVector<float>(values, {12});
    switch (spec.bindings[r]) {
      case 0:
        return {big->Slice(0, 4), big->Slice(4, 8)};  // views, offsets 0 and 16
      case 1:
        return {big->Slice(8, 12), big->Slice(8, 12)};  // one view passed twice
      case 2:
        return {big->Slice(2, 6), big->Slice(4, 8)};  // overlapping views
      case 3:
        return {FromVector<float>({v, 1, 2, 3}, {4}), p1};  // an input that is a parameter
      case 5:
        return {p0.Slice(2, 6), p0.Slice(0, 4)};  // overlapping views of a parameter
      default:
        return {big->Reshape({3, 4}).Slice(1, 2).Reshape({4}), big->Slice(0, 4)};
    }
  }
  std::string Snapshot(const std::vector<Tensor>& outs, const Tensor& big) {
    std::string s;
    for (const Tensor& o : outs) s += "out: " + Observe(o) + "\n";
    s += "p0: " + Observe(p0) + "\np1: " + Observe(p1) + "\np2: " + Observe(p2) +
         "\nbig: " + Observe(big) + "\n";
    return s;
  }
};

inline std::string Describe(const GraphProgramSpec& spec) {
  std::string s;
  for (const GraphStep& st : spec.steps) {
    s += "op " + std::to_string(st.op) + " a " + std::to_string(st.a) + " b " +
         std::to_string(st.b) + " s " + std::to_string(st.scalar) + " range " +
         std::to_string(st.range) + "\n";
  }
  s += "outputs " + std::to_string(spec.outputs[0]) + " " + std::to_string(spec.outputs[1]) +
       "\nbindings";
  for (int b : spec.bindings) s += " " + std::to_string(b);
  return s + "\n";
}

// Runs `spec` both ways; "" if they agree, else what differed.
inline std::string RunGraphProgram(const GraphProgramSpec& spec) {
  RegisterGraphProgramOps();
  GraphWorld eager, graph;
  const std::vector<TensorMeta> metas(2, TensorMeta{Shape({4}), DType::kFloat32, Device::Cpu()});
  GraphOptions options;
  options.check_lifetimes = true;
  absl::StatusOr<Graph> g = Graph::Capture(
      metas,
      [&](const std::vector<Tensor>& in) {
        return InterpretGraphProgram(spec, in, graph.p0, graph.p1, graph.p2, 1);
      },
      options);
  if (!g.ok()) return "Capture failed: " + g.status().ToString();
  (void)Sync();
  const int64_t log0 = g_graph_prog_log[0], log1 = g_graph_prog_log[1];
  const int64_t sen0 = g_graph_prog_sensor[0], sen1 = g_graph_prog_sensor[1];
  for (int r = 0; r < spec.runs; ++r) {
    Tensor big_e, big_g;
    std::vector<Tensor> in_e = eager.Bind(spec, r, &big_e);
    std::vector<Tensor> in_g = graph.Bind(spec, r, &big_g);
    std::vector<Tensor> out_e = InterpretGraphProgram(spec, in_e, eager.p0, eager.p1, eager.p2, 0);
    absl::StatusOr<std::vector<Tensor>> out_g = g->Run(in_g);
    if (!out_g.ok()) return "Run failed: " + out_g.status().ToString();
    const std::string se = eager.Snapshot(out_e, big_e), sg = graph.Snapshot(*out_g, big_g);
    absl::Status sync_e = Sync();  // reports the errors of both worlds: compared by value above
    (void)sync_e;
    if (se != sg) {
      return Describe(spec) + "run " + std::to_string(r) + ":\neager:\n" + se + "graph:\n" + sg;
    }
    if (g_graph_prog_log[0] - log0 != g_graph_prog_log[1] - log1 ||
        g_graph_prog_sensor[0] - sen0 != g_graph_prog_sensor[1] - sen1) {
      return "run " + std::to_string(r) + ": side-effect counts differ";
    }
    // Eager code changes the parameters between runs, the same in both.
    for (GraphWorld* wd : {&eager, &graph}) {
      (void)ops::AddInplace(wd->p1, Full({4}, 0.5, DType::kFloat32));
      (void)ops::MulScalarInplace(wd->p0.Slice(2, 6), -1.0);
      (void)ops::FillInplace(wd->p2.Slice(r % 4, r % 4 + 1), static_cast<float>(r));
    }
  }
  (void)Sync();
  return "";
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_GRAPH_PROGRAM_H_
