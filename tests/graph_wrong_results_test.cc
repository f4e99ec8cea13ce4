// Graph mode's silent wrong results, each against eager execution: views
// passed to Run, symbolic tensors escaping the captured function, impure
// custom ops (dropped or hoisted), failures of the first run's init phase,
// and storages written only in part (through views).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "base/fault_injection.h"
#include "graph_test_util.h"

namespace eagervm {
namespace {

using testing::F32;
using testing::Make;
using testing::RunOk;
using testing::Values;

// ---- (1) views as inputs --------------------------------------------------

TEST(GraphWrongResults, AViewInputIsBoundAtItsOffset) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor y = ops::MulScalar(in[0], 10.0);
    EXPECT_TRUE(ops::AddInplace(in[0], Full({2}, 100.0, DType::kFloat32)).ok());
    return std::vector<Tensor>{y, in[0], in[0].Slice(1, 2)};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor big = Make<float>({0, 1, 2, 3, 4, 5}, {6});
  std::vector<Tensor> out = RunOk(*g, {big.Slice(2, 4)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{20, 30}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{102, 103}));  // a view of the bound tensor
  EXPECT_EQ(Values<float>(out[2]), (std::vector<float>{103}));
  EXPECT_EQ(Values<float>(big), (std::vector<float>{0, 1, 102, 103, 4, 5}));
  // The same as eager.
  Tensor big2 = Make<float>({0, 1, 2, 3, 4, 5}, {6});
  std::vector<Tensor> want = fn({big2.Slice(2, 4)});
  EXPECT_EQ(Values<float>(want[0]), Values<float>(out[0]));
  EXPECT_EQ(Values<float>(big2), Values<float>(big));
  // An output aliasing the input is the caller's storage.
  ASSERT_TRUE(ops::FillInplace(out[1], 7.0).ok());
  EXPECT_EQ(Values<float>(big), (std::vector<float>{0, 1, 7, 7, 4, 5}));
}

TEST(GraphWrongResults, InputsBoundToOverlappingViewsReadAsEagerly) {
  // Two inputs, separate at capture, bound at Run to overlapping views of one
  // tensor: the in-place op reads its input as it was before the op, as eager
  // does (eager stages the overlapping input through a copy).
  auto fn = [](const std::vector<Tensor>& in) {
    (void)ops::AddInplace(in[0], in[1]);
    (void)ops::CopyInto(in[2], in[1]);
    return std::vector<Tensor>{ops::MulScalar(in[0], 1.0)};
  };
  auto world = [] { return Make<float>({1, 2, 3, 4, 5}, {5}); };
  Tensor eager_x = world();
  std::vector<Tensor> eager_in = {eager_x.Slice(1, 5), eager_x.Slice(0, 4), eager_x.Slice(1, 5)};
  (void)fn(eager_in);
  const std::vector<float> want = Values<float>(eager_x);
  // x[1:] += x[:4] -> [1 3 5 7 9]; then x[1:] = x[:4] -> [1 1 3 5 7]
  EXPECT_EQ(want, (std::vector<float>{1, 1, 3, 5, 7}));
  absl::StatusOr<Graph> g = Graph::Capture({F32({4}), F32({4}), F32({4})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  for (int run = 0; run < 2; ++run) {
    Tensor x = world();
    (void)RunOk(*g, {x.Slice(1, 5), x.Slice(0, 4), x.Slice(1, 5)});
    EXPECT_EQ(Values<float>(x), want) << "run " << run;
  }
}

TEST(GraphWrongResults, BatchesThatAreSlicesOfOneTensorAreEachUsed) {
  Tensor acc = Zeros({2}, DType::kFloat32);
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [&](const std::vector<Tensor>& in) {
    EXPECT_TRUE(ops::AddInplace(acc, in[0]).ok());
    return std::vector<Tensor>{ops::Sum(in[0])};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  std::vector<float> sums;
  for (int b = 0; b < 3; ++b) {
    sums.push_back(Values<float>(RunOk(*g, {x.Slice(b, b + 1).Reshape({2})})[0])[0]);
  }
  EXPECT_EQ(sums, (std::vector<float>{3, 7, 11}));
  EXPECT_EQ(Values<float>(acc), (std::vector<float>{9, 12}));
}

// ---- (2) symbolic tensors escaping fn -------------------------------------

TEST(GraphWrongResults, RebindingAParameterInsideFnFailsCapture) {
  Tensor w = Make<float>({1, 2}, {2});
  const Tensor original = w;
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [&](const std::vector<Tensor>& in) {
    Tensor grad = ops::Mul(in[0], w);
    w = ops::Sub(w, ops::MulScalar(grad, 0.1));  // rebinds w to a symbolic tensor
    return std::vector<Tensor>{ops::Sum(grad)};
  });
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << g.status();
  EXPECT_NE(g.status().message().find("Sub"), std::string::npos) << g.status();
  EXPECT_NE(g.status().message().find("in place"), std::string::npos) << g.status();
  EXPECT_NE(g.status().message().find("AddInplace"), std::string::npos) << g.status();
  // The leaked tensor names graph capture when used eagerly.
  Tensor y = ops::AddScalar(w, 1.0);
  absl::Status s = y.Wait();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Graph::Capture"), std::string::npos) << s;
  absl::StatusOr<std::vector<float>> v = w.ToVector<float>();
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("Graph::Capture"), std::string::npos) << v.status();
  // And as a parameter of a later capture, at capture time.
  absl::StatusOr<Graph> g2 = Graph::Capture({F32({2})}, [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::Add(in[0], w)};
  });
  ASSERT_FALSE(g2.ok());
  EXPECT_NE(g2.status().message().find("Graph::Capture"), std::string::npos) << g2.status();
  EXPECT_EQ(Values<float>(original), (std::vector<float>{1, 2}));
  (void)Sync();  // the eager error above was reported by Wait; nothing else
}

TEST(GraphWrongResults, TwoRebindsNameTheFirstEscapeEveryTime) {
  // Several escapes: the error names the one made first, whatever the order
  // in which the capture's bookkeeping happens to list them.
  std::vector<Tensor> kept;  // keeps each round's storages alive: new addresses every round
  for (int i = 0; i < 40; ++i) {
    Tensor& w = kept.emplace_back(Make<float>({1, 2}, {2}));
    Tensor b = Make<float>({3, 4}, {2});
    absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [&](const std::vector<Tensor>& in) {
      Tensor grad = ops::Mul(in[0], w);
      w = ops::Sub(w, ops::MulScalar(grad, 0.1));  // first escape: Sub
      b = ops::Add(b, ops::MulScalar(grad, 0.2));  // second escape: Add
      return std::vector<Tensor>{ops::Sum(grad)};
    });
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.status().message().find("the result of Sub"), std::string::npos) << g.status();
    kept.push_back(b);
  }
  (void)Sync();
}

TEST(GraphWrongResults, ASymbolicTensorKeptInAGlobalFailsCapture) {
  static Tensor kept;
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
    kept = ops::Neg(in[0]);
    return std::vector<Tensor>{ops::Exp(in[0])};
  });
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("Neg"), std::string::npos) << g.status();
  kept = Tensor();
  // The in-place form captures and trains.
  Tensor w = Make<float>({1, 2}, {2});
  g = Graph::Capture({F32({2})}, [&](const std::vector<Tensor>& in) {
    EXPECT_TRUE(ops::AddInplace(w, ops::MulScalar(in[0], -0.5)).ok());
    return std::vector<Tensor>{ops::Sum(w)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  RunOk(*g, {Make<float>({2, 2}, {2})});
  EXPECT_EQ(Values<float>(w), (std::vector<float>{0, 1}));
}

// ---- (3) impure custom ops --------------------------------------------------

std::atomic<int> g_side_effects{0};
std::atomic<int> g_sensor{0};

// graph_wr.Log: counts its calls, no outputs used. graph_wr.Sensor: no
// inputs, returns an increasing value. graph_wr.Fail: always fails. All
// default (impure) options.
void RegisterImpureOps() {
  static const bool once = [] {
    auto same = [](const std::vector<TensorMeta>& in,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; };
    (void)RegisterOp("graph_wr.Log", same);
    (void)RegisterKernel("graph_wr.Log", DeviceType::kCPU, [](KernelContext& ctx) {
      g_side_effects.fetch_add(1);
      std::memcpy(ctx.raw_output(0), ctx.raw_input(0), ctx.input_meta(0).shape.numel() * 4);
      return absl::OkStatus();
    });
    (void)RegisterOp("graph_wr.Sensor",
                     [](const std::vector<TensorMeta>&,
                        const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                       return std::vector<TensorMeta>{F32({1})};
                     });
    (void)RegisterKernel("graph_wr.Sensor", DeviceType::kCPU, [](KernelContext& ctx) {
      *ctx.output<float>(0) = static_cast<float>(g_sensor.fetch_add(1) + 1);
      return absl::OkStatus();
    });
    (void)RegisterOp("graph_wr.Fail", same);
    (void)RegisterKernel("graph_wr.Fail", DeviceType::kCPU, [](KernelContext&) {
      return absl::InternalError("graph_wr.Fail failed");
    });
    return true;
  }();
  (void)once;
}

TEST(GraphWrongResults, ASideEffectOnlyCustomOpRunsEveryRun) {
  RegisterImpureOps();
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
    (void)ops::Call("graph_wr.Log", {in[0]});  // result unused
    return std::vector<Tensor>{ops::Neg(in[0])};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(Sync().ok());
  const int before = g_side_effects.load();
  for (int r = 0; r < 3; ++r) RunOk(*g, {Make<float>({1, 2}, {2})});
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(g_side_effects.load() - before, 3);
}

TEST(GraphWrongResults, ACustomOpWithNoInputsIsNotAConstant) {
  RegisterImpureOps();
  absl::StatusOr<Graph> g = Graph::Capture({F32({1})}, [](const std::vector<Tensor>& in) {
    auto s = ops::Call("graph_wr.Sensor", {});
    return std::vector<Tensor>{ops::Add(in[0], (*s)[0])};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().constant_nodes, 0);
  ASSERT_TRUE(Sync().ok());
  std::vector<float> got;
  const int base = g_sensor.load();
  for (int r = 0; r < 3; ++r)
    got.push_back(Values<float>(RunOk(*g, {Make<float>({0}, {1})})[0])[0]);
  EXPECT_EQ(got, (std::vector<float>{base + 1.f, base + 2.f, base + 3.f}));
}

TEST(GraphWrongResults, AFailingUnusedCustomOpIsReportedBySync) {
  RegisterImpureOps();
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
    (void)ops::Call("graph_wr.Fail", {in[0]});
    return std::vector<Tensor>{ops::Neg(in[0])};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(Sync().ok());
  std::vector<Tensor> out = RunOk(*g, {Make<float>({1, 2}, {2})});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{-1, -2}));
  absl::Status s = Sync();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("graph_wr.Fail"), std::string::npos) << s;
  // As eagerly.
  (void)ops::Call("graph_wr.Fail", {Make<float>({1, 2}, {2})});
  EXPECT_FALSE(Sync().ok());
}

TEST(GraphWrongResults, PureOpsAreStillHoistedAndDropped) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
    Tensor unused = ops::Exp(in[0]);
    (void)unused;
    return std::vector<Tensor>{ops::Add(in[0], ops::AddScalar(Full({2}, 1.0, DType::kFloat32), 1))};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().constant_nodes, 2);
  EXPECT_EQ(g->GetStats().nodes, 1);
}

// ---- (4) init-phase failures ------------------------------------------------

std::atomic<int> g_flaky_failures{0};

// graph_wr.FlakyConst: no inputs, pure (a constant); fails while
// g_flaky_failures > 0 (one failure per call), else writes 5.
void RegisterFlakyConstant() {
  static const bool once = [] {
    OpOptions o;
    o.pure = true;
    (void)RegisterOp(
        "graph_wr.FlakyConst",
        [](const std::vector<TensorMeta>&,
           const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
          return std::vector<TensorMeta>{F32({4})};
        },
        o);
    (void)RegisterKernel("graph_wr.FlakyConst", DeviceType::kCPU, [](KernelContext& ctx) {
      if (g_flaky_failures.fetch_sub(1) > 0) return absl::UnavailableError("flaky constant");
      for (int i = 0; i < 4; ++i) ctx.output<float>(0)[i] = 5;
      return absl::OkStatus();
    });
    return true;
  }();
  (void)once;
}

TEST(GraphWrongResults, AFailingConstantPoisonsTheRunAndTheNextRunRetries) {
  RegisterFlakyConstant();
  absl::StatusOr<Graph> g = Graph::Capture({F32({4})}, [](const std::vector<Tensor>& in) {
    auto c = ops::Call("graph_wr.FlakyConst", {});
    return std::vector<Tensor>{ops::Add(in[0], (*c)[0]), ops::Neg(in[0])};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().constant_nodes, 1);
  ASSERT_TRUE(Sync().ok());
  g_flaky_failures = 1;
  std::vector<Tensor> out = RunOk(*g, {Make<float>({1, 1, 1, 1}, {4})});
  absl::Status s = out[0].Wait();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("flaky constant"), std::string::npos) << s;
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{-1, -1, -1, -1}));  // independent
  (void)Sync();
  for (int r = 0; r < 2; ++r) {
    out = RunOk(*g, {Make<float>({1, 2, 3, 4}, {4})});
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{6, 7, 8, 9}));
  }
  EXPECT_TRUE(Sync().ok());
  g_flaky_failures = 0;
}

TEST(GraphWrongResults, AnArenaAllocationFailureInTheFirstRunIsRetried) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({4})}, [](const std::vector<Tensor>& in) {
    Tensor c = ops::MulScalar(Full({4}, 2.0, DType::kFloat32), 3.0);  // constants in the arena
    return std::vector<Tensor>{ops::Add(in[0], c)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({1, 2, 3, 4}, {4});
  ASSERT_TRUE(Sync().ok());
  base::ArmFault(base::FaultSite::kAllocation, 1);  // the first allocation: the arena
  std::vector<Tensor> out = RunOk(*g, {x});
  EXPECT_FALSE(out[0].Wait().ok());
  base::ArmFault(base::FaultSite::kAllocation, 0);
  (void)Sync();
  for (int r = 0; r < 2; ++r) {
    out = RunOk(*g, {x});
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{7, 8, 9, 10}));
  }
  EXPECT_TRUE(Sync().ok());
}

// ---- (5) storages written only in part --------------------------------------
// Eagerly, a storage first written through a view holds values only in the
// bytes some write covered: reading others is an error ("no write covered"),
// reading a storage nothing wrote is "never written". The graph must say the
// same, for intermediates (arena memory holds another value's bytes) and for
// bound inputs and parameters, whatever eager code did to them between runs.

std::string ErrorOf(const Tensor& t) {
  absl::Status s = t.Wait();
  return s.ok() ? "ok" : std::string(s.message());
}

// A tensor whose producer fails at run time.
Tensor FailedTensor(int64_t n) {
  RegisterImpureOps();
  return (*ops::Call("graph_wr.Fail", {Full({n}, 1.0, DType::kFloat32)}))[0];
}

TEST(GraphWrongResults, AnIntermediateWrittenThroughASliceIsNotReadWhole) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor t = Empty({4}, DType::kFloat32);
    EXPECT_TRUE(ops::CopyInto(t.Slice(0, 2), in[0]).ok());
    return std::vector<Tensor>{ops::AddScalar(t, 1.0), ops::AddScalar(t.Slice(0, 2), 1.0),
                               ops::Neg(in[0])};
  };
  GraphOptions check;  // arena bytes after their last use are NaN, not zeros
  check.check_lifetimes = true;
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, fn, check);
  ASSERT_TRUE(g.ok()) << g.status();
  for (int r = 0; r < 2; ++r) {
    Tensor x = Make<float>({1, 2}, {2});
    std::vector<Tensor> got = RunOk(*g, {x});
    absl::Status synced = Sync();  // the graph recorded the error, as an eager op does
    EXPECT_NE(synced.message().find("no write covered"), std::string::npos) << synced;
    std::vector<Tensor> want = fn({x});
    ASSERT_EQ(got.size(), 3u);
    EXPECT_NE(ErrorOf(want[0]).find("no write covered"), std::string::npos) << ErrorOf(want[0]);
    EXPECT_EQ(ErrorOf(got[0]), ErrorOf(want[0])) << "run " << r;
    EXPECT_EQ(Values<float>(got[1]), (std::vector<float>{2, 3}));
    EXPECT_EQ(Values<float>(got[2]), (std::vector<float>{-1, -2}));
    (void)Sync();  // Wait reported both worlds' errors
  }
}

TEST(GraphWrongResults, AnEmptyTensorReadBeforeAnyWriteFailsTheRunAsEagerly) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor t = Empty({2}, DType::kFloat32);
    Tensor y = ops::Add(t, in[0]);
    EXPECT_TRUE(ops::FillInplace(t, 3.0).ok());  // written after the read
    return std::vector<Tensor>{y, ops::Add(t, in[0])};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({1, 2}, {2});
  std::vector<Tensor> got = RunOk(*g, {x});
  std::vector<Tensor> want = fn({x});
  EXPECT_NE(ErrorOf(want[0]).find("never written"), std::string::npos) << ErrorOf(want[0]);
  EXPECT_EQ(ErrorOf(got[0]), ErrorOf(want[0]));
  EXPECT_EQ(Values<float>(got[1]), (std::vector<float>{4, 5}));
  (void)Sync();
}

TEST(GraphWrongResults, AnOutputWrittenThroughASliceIsPartlyWritten) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor t = Empty({4}, DType::kFloat32);
    EXPECT_TRUE(ops::CopyInto(t.Slice(1, 3), in[0]).ok());
    return std::vector<Tensor>{t, t.Slice(1, 3), Empty({2}, DType::kFloat32)};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({1, 2}, {2});
  std::vector<Tensor> got = RunOk(*g, {x});
  std::vector<Tensor> want = fn({x});
  for (int i : {0, 2}) {
    absl::StatusOr<std::vector<float>> g_values = got[i].ToVector<float>();
    absl::StatusOr<std::vector<float>> e_values = want[i].ToVector<float>();
    ASSERT_FALSE(e_values.ok());
    EXPECT_EQ(g_values.status(), e_values.status()) << i;
  }
  EXPECT_EQ(Values<float>(got[1]), (std::vector<float>{1, 2}));
  (void)Sync();
}

// A parameter partly written by eager code before the capture: each run
// reads it as it then is: refused, then (healed eagerly) read, then
// (poisoned eagerly) the poison forwarded, then healed again.
TEST(GraphWrongResults, APartlyWrittenParameterIsReadAsEagerly) {
  Tensor p = Empty({4}, DType::kFloat32);
  Tensor q = Empty({4}, DType::kFloat32);
  for (Tensor* t : {&p, &q}) ASSERT_TRUE(ops::FillInplace(t->Slice(0, 2), 1.0).ok());
  auto fn = [](const Tensor& param, const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::Add(param, in[0]), ops::Neg(in[0])};
  };
  absl::StatusOr<Graph> g =
      Graph::Capture({F32({4})}, [&](const std::vector<Tensor>& in) { return fn(p, in); });
  ASSERT_TRUE(g.ok()) << g.status();
  const Tensor x = Make<float>({1, 2, 3, 4}, {4});
  auto compare = [&](const char* when) {
    std::vector<Tensor> got = RunOk(*g, {x});
    std::vector<Tensor> want = fn(q, {x});
    EXPECT_EQ(ErrorOf(got[0]), ErrorOf(want[0])) << when;
    if (ErrorOf(want[0]) == "ok") EXPECT_EQ(Values<float>(got[0]), Values<float>(want[0])) << when;
    EXPECT_EQ(Values<float>(got[1]), Values<float>(want[1])) << when;
    (void)Sync();
    return ErrorOf(want[0]);
  };
  EXPECT_NE(compare("partly written").find("no write covered"), std::string::npos);
  for (Tensor* t : {&p, &q}) ASSERT_TRUE(ops::FillInplace(t->Slice(2, 4), 3.0).ok());
  EXPECT_EQ(compare("healed"), "ok");
  for (Tensor* t : {&p, &q}) ASSERT_TRUE(ops::AddInplace(*t, FailedTensor(4)).ok());
  EXPECT_NE(compare("poisoned").find("graph_wr.Fail"), std::string::npos);
  for (Tensor* t : {&p, &q}) ASSERT_TRUE(ops::FillInplace(*t, 2.0).ok());
  EXPECT_EQ(compare("overwritten"), "ok");
}

// A never-written parameter that the plan writes through a view: eager code
// and the plan's later reads see only the bytes it wrote.
TEST(GraphWrongResults, AParameterThePlanWritesInPartIsPartlyWritten) {
  Tensor p = Empty({4}, DType::kFloat32);
  Tensor q = Empty({4}, DType::kFloat32);
  auto fn = [](const Tensor& param, const std::vector<Tensor>& in) {
    EXPECT_TRUE(ops::CopyInto(param.Slice(0, 2), in[0]).ok());
    return std::vector<Tensor>{ops::Sum(param.Slice(0, 2)), ops::Sum(param)};
  };
  absl::StatusOr<Graph> g =
      Graph::Capture({F32({2})}, [&](const std::vector<Tensor>& in) { return fn(p, in); });
  ASSERT_TRUE(g.ok()) << g.status();
  const Tensor x = Make<float>({1, 2}, {2});
  std::vector<Tensor> got = RunOk(*g, {x});
  std::vector<Tensor> want = fn(q, {x});
  EXPECT_EQ(Values<float>(got[0]), (std::vector<float>{3}));
  EXPECT_NE(ErrorOf(want[1]).find("no write covered"), std::string::npos) << ErrorOf(want[1]);
  EXPECT_EQ(ErrorOf(got[1]), ErrorOf(want[1]));
  EXPECT_EQ(p.ToVector<float>().status(), q.ToVector<float>().status());
  EXPECT_EQ(Values<float>(p.Slice(0, 2)), (std::vector<float>{1, 2}));
  (void)Sync();
}

// An input view of a partly written storage.
TEST(GraphWrongResults, APartlyWrittenInputIsRefusedAsEagerly) {
  auto fn = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{ops::Neg(in[0])}; };
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor e = Empty({4}, DType::kFloat32);
  ASSERT_TRUE(ops::FillInplace(e.Slice(0, 1), 1.0).ok());
  for (int64_t at : {0, 1}) {
    std::vector<Tensor> got = RunOk(*g, {e.Slice(at, at + 2)});
    std::vector<Tensor> want = fn({e.Slice(at, at + 2)});
    EXPECT_NE(ErrorOf(want[0]).find("no write covered"), std::string::npos) << ErrorOf(want[0]);
    EXPECT_EQ(ErrorOf(got[0]), ErrorOf(want[0])) << at;
  }
  ASSERT_TRUE(ops::FillInplace(e.Slice(1, 4), 2.0).ok());
  EXPECT_EQ(Values<float>(RunOk(*g, {e.Slice(1, 3)})[0]), (std::vector<float>{-2, -2}));
  (void)Sync();
}

// An intermediate poisoned in one run and written in part in the next: each
// run's intermediates are fresh, as eagerly, so run 1's error is not kept.
TEST(GraphWrongResults, AnIntermediatesErrorDoesNotOutliveItsRun) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor t = Empty({4}, DType::kFloat32);
    EXPECT_TRUE(ops::CopyInto(t.Slice(0, 2), in[0]).ok());
    return std::vector<Tensor>{ops::MulScalar(t.Slice(0, 2), 2.0)};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<Tensor> got = RunOk(*g, {FailedTensor(2)});
  EXPECT_NE(ErrorOf(got[0]).find("graph_wr.Fail"), std::string::npos) << ErrorOf(got[0]);
  (void)Sync();
  got = RunOk(*g, {Make<float>({1, 2}, {2})});
  EXPECT_EQ(ErrorOf(got[0]), "ok");
  EXPECT_EQ(Values<float>(got[0]), (std::vector<float>{2, 4}));
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
