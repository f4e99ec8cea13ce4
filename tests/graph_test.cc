// Graph mode: capture, the passes, the memory plan, launch, critical
// sections and errors, each against eager execution of the same function.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "graph_test_util.h"

namespace eagervm {
namespace {

using namespace std::chrono_literals;
using testing::F32;
using testing::Make;
using testing::RunOk;
using testing::Values;

TEST(Graph, ReplaysEqualEager) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor h = ops::Relu(ops::AddScalar(in[0], 1.0));
    return std::vector<Tensor>{ops::Mul(h, in[1]), ops::Sum(h)};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({4}), F32({4})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  for (int r = 0; r < 5; ++r) {
    Tensor a = Make<float>({-2.f + r, 0.5f, 1.f, -1.f}, {4});
    Tensor b = Make<float>({1.f, 2.f, 3.f, 4.f * r}, {4});
    std::vector<Tensor> got = RunOk(*g, {a, b});
    std::vector<Tensor> want = fn({a, b});
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(Values<float>(got[0]), Values<float>(want[0]));
    EXPECT_EQ(Values<float>(got[1]), Values<float>(want[1]));
  }
  EXPECT_EQ(g->GetStats().captured_nodes, 4);
  EXPECT_EQ(g->GetStats().runs, 5);
}

TEST(Graph, ParametersAreCapturedByReference) {
  Tensor w = Make<float>({1, 2, 3, 4}, {2, 2});
  absl::StatusOr<Graph> g = Graph::Capture({F32({2, 2})}, [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::MatMul(in[0], w)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({1, 0, 0, 1}, {2, 2});
  EXPECT_EQ(Values<float>(RunOk(*g, {x})[0]), (std::vector<float>{1, 2, 3, 4}));
  ASSERT_TRUE(ops::AddInplace(w, Make<float>({10, 10, 10, 10}, {2, 2})).ok());  // eager update
  EXPECT_EQ(Values<float>(RunOk(*g, {x})[0]), (std::vector<float>{11, 12, 13, 14}));
}

TEST(Graph, InPlaceStepOnParametersAndInputs) {
  // An SGD step inside the graph: w -= 0.5 * x; x *= 2 (the caller sees both).
  Tensor w = Make<float>({1, 1, 1}, {3});
  absl::StatusOr<Graph> g = Graph::Capture({F32({3})}, [&](const std::vector<Tensor>& in) {
    Tensor loss = ops::Sum(ops::Mul(in[0], w));
    EXPECT_TRUE(ops::AddInplace(w, ops::MulScalar(in[0], -0.5)).ok());
    EXPECT_TRUE(ops::MulScalarInplace(in[0], 2.0).ok());
    return std::vector<Tensor>{loss};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({2, 4, 6}, {3});
  std::vector<Tensor> out = RunOk(*g, {x});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{12}));
  EXPECT_EQ(Values<float>(w), (std::vector<float>{0, -1, -2}));
  EXPECT_EQ(Values<float>(x), (std::vector<float>{4, 8, 12}));
  out = RunOk(*g, {x});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{0 * 4 - 8 - 24}));
  EXPECT_EQ(Values<float>(w), (std::vector<float>{-2, -5, -8}));
}

TEST(Graph, OutputThatIsAnInputIsThatTensor) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{in[0], ops::Neg(in[0])};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({1, 2}, {2});
  std::vector<Tensor> out = RunOk(*g, {x});
  ASSERT_TRUE(ops::AddInplace(out[0], Make<float>({1, 1}, {2})).ok());  // the same storage
  EXPECT_EQ(Values<float>(x), (std::vector<float>{2, 3}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{-1, -2}));
}

TEST(Graph, AnIdentityGraphLaunchesNothing) {
  absl::StatusOr<Graph> g =
      Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) { return in; });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().segments, 0);
  Tensor x = Make<float>({3, 4}, {2});
  const uint64_t before = VirtualMachine::Get().GetStats().received;
  std::vector<Tensor> out = RunOk(*g, {x});
  EXPECT_EQ(VirtualMachine::Get().GetStats().received, before);
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{3, 4}));
  Graph moved = *std::move(g);
  EXPECT_EQ(g->Run({x}).status().code(),
            absl::StatusCode::kFailedPrecondition);  // NOLINT: moved-from
  EXPECT_TRUE(moved.Run({x}).ok());
}

TEST(Graph, WrongInputsAreRejectedNamingIndexAndMetas) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({4}), F32({2})}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::Neg(in[0])};
  });
  ASSERT_TRUE(g.ok());
  auto r = g->Run({Make<float>({1, 2, 3, 4}, {4}), Make<float>({1, 2, 3}, {3})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("input 1"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("[3]"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("[2]"), std::string::npos) << r.status();
  r = g->Run({Make<float>({1, 2, 3, 4}, {4})});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(g->GetStats().runs, 0);
}

// Each thing that cannot be captured fails Capture, naming itself, even when
// the function ignores the error.
TEST(Graph, WhatCannotBeCapturedFailsCapture) {
  struct Case {
    const char* name;
    std::function<void(const Tensor&)> body;
  };
  const std::vector<Case> cases = {
      {"Item", [](const Tensor& x) { (void)ops::Sum(x).Item<float>(); }},
      {"ToVector", [](const Tensor& x) { (void)x.ToVector<float>(); }},
      {"Wait", [](const Tensor& x) { (void)ops::Neg(x).Wait(); }},
      {"Sync()", [](const Tensor&) { (void)Sync(); }},
      {"AccessBlobByCallback",
       [](const Tensor& x) {
         (void)vm::PhysicalRun([&](vm::InstructionsBuilder* b) {
           return b->AccessBlobByCallback(
               x, [](void*, size_t) {}, vm::AccessMode::kRead);
         });
       }},
      {"Barrier",
       [](const Tensor&) {
         (void)vm::PhysicalRun([&](vm::InstructionsBuilder* b) { return b->Barrier([] {}); });
       }},
      {"nested",
       [](const Tensor& x) {
         (void)Graph::Capture({F32({3})}, [](const std::vector<Tensor>& in) { return in; });
       }},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Graph> g = Graph::Capture({F32({3})}, [&](const std::vector<Tensor>& in) {
      c.body(in[0]);
      return std::vector<Tensor>{ops::Neg(in[0])};
    });
    ASSERT_FALSE(g.ok()) << c.name;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kFailedPrecondition) << c.name << g.status();
    EXPECT_NE(g.status().message().find(c.name), std::string::npos) << g.status();
  }
  // A Graph::Run inside a capture.
  absl::StatusOr<Graph> inner = Graph::Capture({F32({3})}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::Neg(in[0])};
  });
  ASSERT_TRUE(inner.ok());
  absl::StatusOr<Graph> g = Graph::Capture({F32({3})}, [&](const std::vector<Tensor>& in) {
    (void)inner->Run(in);
    return in;
  });
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("Graph::Run"), std::string::npos) << g.status();
  // Eager work on this thread is unaffected afterwards.
  EXPECT_EQ(Values<float>(ops::Neg(Make<float>({1}, {1}))), (std::vector<float>{-1}));
}

TEST(Graph, BadOpInsideFailsCaptureWithTheEagerError) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({3}), F32({4})}, [](const std::vector<Tensor>& in) {
    Tensor bad = ops::Add(in[0], in[1]);  // ignored
    (void)bad;
    return std::vector<Tensor>{ops::Neg(in[0])};
  });
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  Tensor eager = ops::Add(Make<float>({1, 2, 3}, {3}), Make<float>({1, 2, 3, 4}, {4}));
  EXPECT_EQ(g.status(), eager.status());
}

TEST(Graph, ConstantsAreHoistedAndDeadCodeDropped) {
  GraphOptions options;
  options.fuse = false;  // Mul and Add would be one node
  absl::StatusOr<Graph> g = Graph::Capture(
      {F32({4})},
      [](const std::vector<Tensor>& in) {
        Tensor c = ops::MulScalar(Full({4}, 2.0, DType::kFloat32), 3.0);  // constant: 2 nodes
        Tensor unused = ops::Exp(in[0]);                                  // dead
        (void)unused;
        Tensor v = FromVector<float>({1, 2, 3, 4}, {4});  // constant host write
        return std::vector<Tensor>{ops::Add(ops::Mul(in[0], c), v)};
      },
      options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().captured_nodes, 6);
  EXPECT_EQ(g->GetStats().constant_nodes, 3);
  EXPECT_EQ(g->GetStats().nodes, 2);
  for (int r = 0; r < 3; ++r) {
    std::vector<Tensor> out = RunOk(*g, {Make<float>({1, 1, 1, float(r)}, {4})});
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{7, 8, 9, 4.f + 6 * r}));
  }
}

TEST(Graph, ChainOfEqualTemporariesPlansAboutTwoBuffers) {
  constexpr int kN = 50;
  absl::StatusOr<Graph> g = Graph::Capture({F32({256})}, [](const std::vector<Tensor>& in) {
    Tensor t = in[0];
    for (int i = 0; i < kN; ++i) t = ops::AddScalar(t, 1.0);
    return std::vector<Tensor>{t};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  const GraphStats s = g->GetStats();
  EXPECT_EQ(s.lower_bound_bytes, 2 * 1024);
  EXPECT_LE(s.arena_bytes, s.lower_bound_bytes * 5 / 4);
  std::vector<float> x(256, 0.5f);
  std::vector<Tensor> out = RunOk(*g, {FromVector<float>(x, {256})});
  EXPECT_EQ(Values<float>(out[0]), std::vector<float>(256, 50.5f));
}

// Registers `name` once per process: one input, an output of its meta, and
// `kernel` on the CPU.
absl::Status RegisterSameMetaOp(const char* name, KernelFn kernel) {
  absl::Status s =
      RegisterOp(name,
                 [](const std::vector<TensorMeta>& in,
                    const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; });
  if (!s.ok()) return s;
  return RegisterKernel(name, DeviceType::kCPU, std::move(kernel));
}

// Copies its input after sleeping attrs["ms"] milliseconds.
absl::Status RegisterSlowCopy() {
  static const absl::Status once =
      RegisterSameMetaOp("graph_test.SlowCopy", [](KernelContext& ctx) {
        std::this_thread::sleep_for(
            std::chrono::milliseconds(static_cast<int>(std::get<int64_t>(ctx.attrs().at("ms")))));
        std::memcpy(ctx.raw_output(0), ctx.raw_input(0), ctx.input_meta(0).shape.numel() * 4);
        return absl::OkStatus();
      });
  return once;
}

TEST(Graph, DroppedWithRunsInFlight) {
  ASSERT_TRUE(RegisterSlowCopy().ok());
  std::vector<Tensor> out;
  {
    absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
      Tensor t = ops::AddScalar(in[0], 1.0);
      auto r = ops::Call("graph_test.SlowCopy", {t}, {{"ms", int64_t{50}}});
      return std::vector<Tensor>{ops::AddScalar((*r)[0], 1.0)};
    });
    ASSERT_TRUE(g.ok()) << g.status();
    for (int i = 0; i < 3; ++i) out.push_back(RunOk(*g, {Make<float>({float(i), 0}, {2})})[0]);
  }  // the graph is gone; its runs are not
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Values<float>(out[i]), (std::vector<float>{i + 2.f, 2}));
  EXPECT_TRUE(Sync().ok());
}

// Critical sections: tests/graph_critical_sections_test.cc.

// Fails for a negative first element, throws above 100, else copies.
absl::Status RegisterFailIfNegative() {
  static const absl::Status once =
      RegisterSameMetaOp("graph_test.FailIfNegative", [](KernelContext& ctx) {
        const float* x = ctx.input<float>(0);
        if (x[0] < 0) return absl::InvalidArgumentError("negative");
        if (x[0] > 100) throw std::runtime_error("too big");
        std::memcpy(ctx.raw_output(0), x, ctx.input_meta(0).shape.numel() * 4);
        return absl::OkStatus();
      });
  return once;
}

TEST(Graph, AFailingNodePoisonsItsDependentsAndTheGraphKeepsWorking) {
  ASSERT_TRUE(RegisterFailIfNegative().ok());
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
    auto checked = ops::Call("graph_test.FailIfNegative", {in[0]});
    Tensor independent = ops::Neg(in[0]);
    return std::vector<Tensor>{ops::AddScalar((*checked)[0], 1.0), independent};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  for (float first : {1.f, -1.f, 200.f, 2.f}) {
    std::vector<Tensor> out = RunOk(*g, {Make<float>({first, 0}, {2})});
    EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{-first, -0.f}));
    absl::Status s = out[0].Wait();
    if (first >= 0 && first <= 100) {
      EXPECT_TRUE(s.ok()) << s;
      EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{first + 1, 1}));
    } else {
      EXPECT_FALSE(s.ok());
      EXPECT_NE(s.message().find("graph_test.FailIfNegative: "), std::string::npos) << s;
    }
    EXPECT_TRUE(Sync().ok());  // the error was reported by Wait
  }
}

TEST(Graph, RunsFromSeveralThreads) {
  Tensor acc = Zeros({1}, DType::kFloat32);
  absl::StatusOr<Graph> g = Graph::Capture({F32({1})}, [&](const std::vector<Tensor>& in) {
    EXPECT_TRUE(ops::AddInplace(acc, in[0]).ok());
    return std::vector<Tensor>{ops::MulScalar(in[0], 2.0)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        std::vector<Tensor> out = RunOk(*g, {Make<float>({1}, {1})});
        EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2}));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(Values<float>(acc), (std::vector<float>{400}));
  EXPECT_EQ(g->GetStats().runs, 400);
}

TEST(Graph, NodesOnTwoStreams) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({3})}, [](const std::vector<Tensor>& in) {
    Tensor a = ops::AddScalar(in[0], 1.0);
    Tensor b;
    {
      StreamScope scope(Stream(Device::Cpu(), 1));
      b = ops::MulScalar(a, 3.0);
    }
    return std::vector<Tensor>{ops::Sub(b, a)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_GE(g->GetStats().segments, 3);
  for (int r = 0; r < 10; ++r) {
    std::vector<Tensor> out = RunOk(*g, {Make<float>({1, 2, float(r)}, {3})});
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{4, 6, 2.f * (r + 1)}));
  }
}

TEST(Graph, KernelTemporariesComeFromTheArenaAfterTheFirstRun) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({64, 64})}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::Sum(ops::Exp(in[0]), 0)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<float> x(64 * 64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.1f;
  Tensor in = FromVector<float>(x, {64, 64});
  const std::vector<float> want = Values<float>(ops::Sum(ops::Exp(in), 0));
  const int64_t planned = g->GetStats().arena_bytes;
  for (int r = 0; r < 3; ++r) EXPECT_EQ(Values<float>(RunOk(*g, {in})[0]), want);
  // The float Sum accumulates in a temporary: the first run sized it, the
  // second reserved it in the arena.
  EXPECT_GT(g->GetStats().arena_bytes, planned);
}

// A plan of one segment of built-in ops on an idle VM runs on the thread
// that called Run, as a small eager op does (no hand-off to a worker).
TEST(Graph, ASmallPlanOnAnIdleVmIsDonatedToTheCaller) {
  absl::StatusOr<Graph> g = Graph::Capture({F32({64})}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::MulScalar(ops::Sum(ops::AddScalar(in[0], 1)), 2.0)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->GetStats().segments, 1);
  Tensor x = Full({64}, 1.0, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  int donated = 0;
  for (int r = 0; r < 5; ++r) {
    ASSERT_TRUE(Sync().ok());
    const uint64_t before = VirtualMachine::Get().GetStats().donated;
    std::vector<Tensor> out = RunOk(*g, {x});
    donated += VirtualMachine::Get().GetStats().donated > before;
    EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{256}));
  }
  EXPECT_GE(donated, 3);  // a run may find a release still in flight
}

}  // namespace
}  // namespace eagervm
