// Graph mode's critical sections: an early output is readable and an input
// read only early is writable while the rest of the plan is still held (a
// kernel blocked on a gate the test opens; no clock is read), and segments
// are cut only where eager code may wait: read-only parameters add none.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "graph_test_util.h"

namespace eagervm {
namespace {

using testing::F32;
using testing::Make;
using testing::Values;

// A gate a kernel waits on. A watchdog opens it after a long time so that a
// wrong runtime fails the test (opened_by_watchdog) instead of hanging it;
// a right one never needs it, however slow the machine.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;  // guarded by mu
  std::atomic<bool> is_open{false};
  std::atomic<bool> opened_by_watchdog{false};
  std::atomic<int> waiting{0};
  void Open() {
    std::lock_guard<std::mutex> l(mu);
    open = true;
    is_open = true;
    cv.notify_all();
  }
  void Wait() {
    waiting.fetch_add(1);
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return open; });
  }
};
Gate* g_gate = nullptr;

void RegisterGatedCopy() {
  static const bool once = [] {
    (void)RegisterOp("graph_cs.GatedCopy",
                     [](const std::vector<TensorMeta>& in,
                        const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; });
    (void)RegisterKernel("graph_cs.GatedCopy", DeviceType::kCPU, [](KernelContext& ctx) {
      g_gate->Wait();
      std::memcpy(ctx.raw_output(0), ctx.raw_input(0), ctx.input_meta(0).shape.numel() * 4);
      return absl::OkStatus();
    });
    return true;
  }();
  (void)once;
}

TEST(GraphCriticalSections, EarlyOutputAndEarlyInputAreReleasedWhileThePlanIsHeld) {
  RegisterGatedCopy();
  Gate gate;
  g_gate = &gate;
  // Captured and run from the default stream, as eager code: the plan runs
  // on the device's graph stream (GraphOptions::stream unset).
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [](const std::vector<Tensor>& in) {
    Tensor early = ops::AddScalar(in[0], 1.0);
    auto late = ops::Call("graph_cs.GatedCopy", {early});
    return std::vector<Tensor>{early, ops::AddScalar((*late)[0], 1.0)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  std::thread watchdog([&] {
    for (int i = 0; i < 600 && !gate.is_open; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!gate.is_open) {
      gate.opened_by_watchdog = true;
      gate.Open();
    }
  });
  Tensor x = Make<float>({1, 2}, {2});
  absl::StatusOr<std::vector<Tensor>> out = g->Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  // While the late node is blocked: the early output reads, the input (read
  // only by the first node) takes an eager write, and eager work on other
  // tensors runs.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2, 3}));
  ASSERT_TRUE(ops::FillInplace(x, 10.0).ok());
  EXPECT_EQ(Values<float>(x), (std::vector<float>{10, 10}));
  EXPECT_EQ(Values<float>(ops::Neg(Make<float>({4}, {1}))), (std::vector<float>{-4}));
  EXPECT_FALSE(gate.opened_by_watchdog.load()) << "eager work waited for the whole plan";
  gate.Open();
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{3, 4}));  // x's value at Run
  watchdog.join();
  EXPECT_TRUE(Sync().ok());
  g_gate = nullptr;
}

TEST(GraphCriticalSections, ReadOnlyParametersAddNoSegments) {
  std::vector<Tensor> params;
  for (int i = 0; i < 64; ++i) params.push_back(Make<float>({float(i), 1}, {2}));
  absl::StatusOr<Graph> g = Graph::Capture({F32({2})}, [&](const std::vector<Tensor>& in) {
    Tensor y = ops::MulScalar(in[0], 1.0);
    for (const Tensor& p : params) y = ops::Add(y, p);
    return std::vector<Tensor>{y};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_LE(g->GetStats().segments, 2);
  std::vector<Tensor> out = g->Run({Make<float>({0, 0}, {2})}).value();
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{63 * 64 / 2, 64}));
  // An eager update of a read-only parameter is seen by the next run.
  ASSERT_TRUE(ops::AddInplace(params[5], Make<float>({1, 1}, {2})).ok());
  out = g->Run({Make<float>({0, 0}, {2})}).value();
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{63 * 64 / 2 + 1, 65}));
}

// A training step that updates P parameters at its end: each written
// parameter is released by the plan, but a cut ahead of only small inline
// kernels is merged into the next, so small parameters share a segment and
// large ones (whose updates are real work) still get their own.
std::vector<Tensor> SgdStep(const std::vector<Tensor>& in, const std::vector<Tensor>& params) {
  Tensor loss = ops::Sum(ops::Mul(in[0], params[0]));
  for (size_t i = 1; i < params.size(); ++i)
    loss = ops::Add(loss, ops::Sum(ops::Mul(in[0], params[i])));
  for (const Tensor& w : params) EXPECT_TRUE(ops::AddInplace(w, ops::MulScalar(in[0], -0.5)).ok());
  return {loss};
}

TEST(GraphCriticalSections, SmallWrittenParametersShareASegment) {
  std::vector<Tensor> params, eager;
  for (int i = 0; i < 64; ++i) {
    params.push_back(Make<float>({float(i), 1}, {2}));
    eager.push_back(Make<float>({float(i), 1}, {2}));
  }
  absl::StatusOr<Graph> g = Graph::Capture(
      {F32({2})}, [&](const std::vector<Tensor>& in) { return SgdStep(in, params); });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_LE(g->GetStats().segments, 3);
  for (int run = 0; run < 3; ++run) {
    Tensor x = Make<float>({1, 2}, {2});
    std::vector<Tensor> out = g->Run({x}).value();
    std::vector<Tensor> want = SgdStep({x}, eager);
    EXPECT_EQ(Values<float>(out[0]), Values<float>(want[0])) << "run " << run;
  }
  for (int i = 0; i < 64; ++i) EXPECT_EQ(Values<float>(params[i]), Values<float>(eager[i])) << i;
}

TEST(GraphCriticalSections, LargeWrittenParametersKeepTheirCuts) {
  constexpr int64_t kN = 8192;  // 32 KiB a parameter: above inline_max_bytes
  std::vector<Tensor> params;
  for (int i = 0; i < 4; ++i) params.push_back(Full({kN}, 1.0, DType::kFloat32));
  absl::StatusOr<Graph> g = Graph::Capture(
      {F32({kN})}, [&](const std::vector<Tensor>& in) { return SgdStep(in, params); });
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().segments, 4 + 2);
  std::vector<Tensor> out = g->Run({Full({kN}, 1.0, DType::kFloat32)}).value();
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{4.0f * kN}));
  EXPECT_EQ(Values<float>(params[3])[kN - 1], 0.5f);
}

// GraphOptions::stream chooses the plan's stream. Ops on the stream that
// was current at Capture go there, even under a StreamScope naming that same
// stream inside fn: one stream, so only the input's release cuts the plan.
TEST(GraphCriticalSections, GraphOptionsStreamChoosesThePlansStream) {
  GraphOptions options;
  options.stream = Stream(Device::Cpu(), 1);
  absl::StatusOr<Graph> g = Graph::Capture(
      {F32({2})},
      [](const std::vector<Tensor>& in) {
        Tensor a = ops::AddScalar(in[0], 1.0);
        Tensor b;
        {
          StreamScope scope(Stream(Device::Cpu(), 0));
          b = ops::MulScalar(a, 2.0);
        }
        return std::vector<Tensor>{ops::Sub(b, a)};
      },
      options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_LE(g->GetStats().segments, 2);
  std::vector<Tensor> out = g->Run({Make<float>({1, 2}, {2})}).value();
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{2, 3}));
}

}  // namespace
}  // namespace eagervm
