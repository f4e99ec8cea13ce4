// Graph mode's backbone test: random programs run eagerly and as Capture +
// k Runs on fresh inputs, with eager updates of the parameters interleaved
// (submitted from other threads while runs are in flight), must leave
// outputs, parameters and mutated inputs bitwise equal after every run. The
// planner's check mode is on, so a lifetime bug in the memory plan changes
// results instead of hiding.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "random_program.h"

namespace eagervm {
namespace {

using Rng = std::mt19937_64;
constexpr int kPrograms = testing::kSanitized ? 40 : 200;
constexpr int kRuns = 3;

// Fails when x[0] < -2.5 (a runtime error that must poison the same values
// in both modes).
void RegisterFailingOp() {
  static const bool once = [] {
    (void)RegisterOp("graph_diff.Checked",
                     [](const std::vector<TensorMeta>& in,
                        const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; });
    (void)RegisterKernel("graph_diff.Checked", DeviceType::kCPU, [](KernelContext& ctx) {
      const float* x = ctx.input<float>(0);
      if (x[0] < -2.5f) return absl::InvalidArgumentError("x[0] below -2.5");
      std::memcpy(ctx.raw_output(0), x, ctx.input_meta(0).shape.numel() * sizeof(float));
      return absl::OkStatus();
    });
    return true;
  }();
  (void)once;
}

enum Kind { kMat, kVec };  // [4, 4] and [4] float32 values
struct Step {
  int op, a, b, stream;
  double scalar;
};

// A program is a list of steps over a pool of values; interpreting it is the
// same code eagerly and inside Capture.
std::vector<Step> Generate(Rng& rng, int n) {
  std::vector<Step> steps;
  for (int i = 0; i < n; ++i) {
    Step s;
    s.op = static_cast<int>(rng() % 13);
    s.a = static_cast<int>(rng() % 1000);
    s.b = static_cast<int>(rng() % 1000);
    s.stream = static_cast<int>(rng() % 4 == 0);
    s.scalar = std::uniform_real_distribution<double>(-1.5, 1.5)(rng);
    steps.push_back(s);
  }
  return steps;
}

struct Pool {
  std::vector<Tensor> mats, vecs;
  size_t fixed_mats, fixed_vecs;  // inputs and parameters: never dropped
  std::vector<Tensor>& of(Kind k) { return k == kMat ? mats : vecs; }
};

std::vector<Tensor> Interpret(const std::vector<Step>& steps, const std::vector<Tensor>& inputs,
                              const std::vector<Tensor>& params) {
  Pool p;
  p.mats = {inputs[0], params[0]};
  p.vecs = {inputs[1], params[1]};
  p.fixed_mats = p.mats.size();
  p.fixed_vecs = p.vecs.size();
  for (const Step& s : steps) {
    StreamScope scope(Stream(Device::Cpu(), s.stream));
    const Kind k = s.a % 2 ? kMat : kVec;
    std::vector<Tensor>& vs = p.of(k);
    const Tensor& a = vs[s.a / 2 % vs.size()];
    const Tensor& b = vs[s.b % vs.size()];
    switch (s.op) {
      case 0:
        vs.push_back(ops::Add(a, b));
        break;
      case 1:
        vs.push_back(ops::Mul(a, b));
        break;
      case 2:
        vs.push_back(ops::Maximum(a, ops::Sub(b, a)));
        break;
      case 3:
        vs.push_back(ops::AddScalar(ops::MulScalar(a, s.scalar), s.scalar));
        break;
      case 4:
        vs.push_back(s.b % 2 ? ops::Tanh(a) : ops::Relu(ops::Neg(a)));
        break;
      case 5:
        p.mats.push_back(ops::MatMul(p.mats[s.a % p.mats.size()], p.mats[s.b % p.mats.size()]));
        break;
      case 6:
        p.vecs.push_back(ops::Sum(p.mats[s.a % p.mats.size()], s.b % 2));
        break;
      case 7:
        vs.push_back(
            ops::Cast(ops::MulScalar(ops::Cast(a, DType::kFloat64), 1.0 / 3), DType::kFloat32));
        break;
      case 8:
        (void)ops::AddInplace(vs[s.b % vs.size()], ops::MulScalar(a, 0.25));
        break;  // also params, inputs
      case 9:
        (void)ops::MulScalarInplace(vs[s.b % vs.size()], 0.5 + s.scalar / 4);
        break;
      case 10:
        vs.push_back((*ops::Call("graph_diff.Checked", {a}))[0]);
        break;
      case 11: {  // drop a handle (an intermediate)
        const size_t fixed = k == kMat ? p.fixed_mats : p.fixed_vecs;
        if (vs.size() > fixed + 1) vs.erase(vs.begin() + fixed + s.b % (vs.size() - fixed));
        break;
      }
      case 12:
        vs.push_back(ops::Add(a, ops::MulScalar(Full(a.shape(), 0.5, DType::kFloat32), s.scalar)));
        break;
    }
  }
  std::vector<Tensor> out;
  for (size_t i = p.mats.size() > 3 ? p.mats.size() - 3 : 0; i < p.mats.size(); ++i)
    out.push_back(p.mats[i]);
  for (size_t i = p.vecs.size() > 3 ? p.vecs.size() - 3 : 0; i < p.vecs.size(); ++i)
    out.push_back(p.vecs[i]);
  return out;
}

std::vector<float> Data(Rng& rng, int n) {
  std::vector<float> v(n);
  for (float& x : v) x = std::uniform_real_distribution<float>(-3, 3)(rng);
  return v;
}

// Equal bits, or the same error.
std::string Compare(const Tensor& want, const Tensor& got, const std::string& what) {
  absl::Status ws = want.Wait(), gs = got.Wait();
  if (ws.ok() != gs.ok() || (!ws.ok() && ws.message() != gs.message())) {
    return what + ": eager " + ws.ToString() + " vs graph " + gs.ToString();
  }
  if (!ws.ok()) return "";
  auto w = want.ToVector<float>();
  auto g = got.ToVector<float>();
  if (!w.ok() || !g.ok()) return what + ": read failed";
  if (w->size() != g->size() || std::memcmp(w->data(), g->data(), w->size() * sizeof(float)) != 0) {
    return what + ": values differ";
  }
  return "";
}

// A snapshot of `t` now, in stream order (what a later read would see).
Tensor Snapshot(const Tensor& t) { return ops::AddScalar(t, 0.0); }

std::string RunOne(uint64_t seed) {
  RegisterFailingOp();
  Rng rng(seed);
  const std::vector<Step> steps = Generate(rng, 10 + static_cast<int>(rng() % 40));
  const std::vector<float> p0 = Data(rng, 16), p1 = Data(rng, 4);
  std::vector<Tensor> pe = {FromVector<float>(p0, {4, 4}), FromVector<float>(p1, {4})};
  std::vector<Tensor> pg = {FromVector<float>(p0, {4, 4}), FromVector<float>(p1, {4})};
  const TensorMeta mat{Shape{4, 4}, DType::kFloat32, Device::Cpu()};
  const TensorMeta vec{Shape{4}, DType::kFloat32, Device::Cpu()};
  GraphOptions options;
  options.check_lifetimes = true;
  absl::StatusOr<Graph> g = Graph::Capture(
      {mat, vec}, [&](const std::vector<Tensor>& in) { return Interpret(steps, in, pg); }, options);
  if (!g.ok()) return "capture failed: " + g.status().ToString();
  // Everything submitted first, compared at the end: runs overlap the eager
  // updates submitted by other threads between them.
  struct Record {
    std::vector<Tensor> eager, graph;
  };
  std::vector<Record> records;
  for (int r = 0; r < kRuns; ++r) {
    const std::vector<float> x0 = Data(rng, 16), x1 = Data(rng, 4);
    std::vector<Tensor> ie = {FromVector<float>(x0, {4, 4}), FromVector<float>(x1, {4})};
    std::vector<Tensor> ig = {FromVector<float>(x0, {4, 4}), FromVector<float>(x1, {4})};
    Record rec;
    rec.eager = Interpret(steps, ie, pe);
    absl::StatusOr<std::vector<Tensor>> out = g->Run(ig);
    if (!out.ok()) return "run failed: " + out.status().ToString();
    rec.graph = *out;
    if (rec.eager.size() != rec.graph.size()) return "output counts differ";
    for (int i = 0; i < 2; ++i) {
      rec.eager.push_back(Snapshot(pe[i]));
      rec.graph.push_back(Snapshot(pg[i]));
      rec.eager.push_back(Snapshot(ie[i]));
      rec.graph.push_back(Snapshot(ig[i]));
    }
    records.push_back(std::move(rec));
    // Eager updates of both parameter copies, from two other threads.
    const std::vector<float> d0 = Data(rng, 16), d1 = Data(rng, 4);
    std::thread t0([&] {
      (void)ops::AddInplace(pe[0], FromVector<float>(d0, {4, 4}));
      (void)ops::AddInplace(pg[0], FromVector<float>(d0, {4, 4}));
    });
    std::thread t1([&] {
      (void)ops::MulScalarInplace(pe[1], 0.75);
      (void)ops::MulScalarInplace(pg[1], 0.75);
    });
    t0.join();
    t1.join();
  }
  for (size_t r = 0; r < records.size(); ++r) {
    for (size_t i = 0; i < records[r].eager.size(); ++i) {
      std::string f = Compare(records[r].eager[i], records[r].graph[i],
                              "seed " + std::to_string(seed) + " run " + std::to_string(r) +
                                  " value " + std::to_string(i));
      if (!f.empty()) return f;
    }
  }
  (void)Sync();  // the failures both modes recorded
  return "";
}

TEST(GraphDifferential, RandomProgramsMatchEager) {
  for (int p = 0; p < kPrograms; ++p) ASSERT_EQ(RunOne(7000 + p), "");
}

TEST(GraphDifferential, FourThreads) {
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int p = 0; p < kPrograms / 4 && failures[t].empty(); ++p)
        failures[t] = RunOne(90000 + 1000 * t + p);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace eagervm
