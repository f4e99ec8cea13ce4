// Graph mode on CUDA: the flat executor and CUDA-graph replay (from the
// second run on) give eager's values; replay really happens, and turning it
// off falls back to the flat executor. Skips without a GPU.
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "eagervm/autograd.h"
#include "eagervm/optim.h"

namespace eagervm {
namespace {

using testing_cuda::kGpu;

std::vector<float> Read(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>{};
}

void ReplayMatchesEager(bool device_graphs) {
  EAGERVM_REQUIRE_CUDA();
  Tensor w = Full({4, 4}, 0.25f, DType::kFloat32, kGpu);
  auto fn = [&](const std::vector<Tensor>& in) {
    Tensor h = ops::Relu(ops::MatMul(in[0], w) + 1.0f);
    EXPECT_TRUE(ops::AddInplace(w, ops::MulScalar(h, -0.01)).ok());  // a parameter update
    return std::vector<Tensor>{ops::Sum(h, 1), h};
  };
  Tensor w_eager = Full({4, 4}, 0.25f, DType::kFloat32, kGpu);
  auto fn_eager = [&](const Tensor& x) {
    Tensor h = ops::Relu(ops::MatMul(x, w_eager) + 1.0f);
    EXPECT_TRUE(ops::AddInplace(w_eager, ops::MulScalar(h, -0.01)).ok());
    return std::vector<Tensor>{ops::Sum(h, 1), h};
  };
  GraphOptions options;
  options.device_graphs = device_graphs;
  absl::StatusOr<Graph> g =
      Graph::Capture({TensorMeta{{4, 4}, DType::kFloat32, kGpu}}, fn, options);
  ASSERT_TRUE(g.ok()) << g.status();
  std::mt19937_64 rng(3);
  for (int r = 0; r < 8; ++r) {  // 2 set-up runs, then replays: slack for one failed recording
    const std::vector<float> data = testing_cuda::RandomValues<float>(16, rng);
    Tensor x = FromVector<float>(data, {4, 4}, kGpu);
    absl::StatusOr<std::vector<Tensor>> out = g->Run({x});
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<Tensor> want = fn_eager(x);
    EXPECT_EQ(Read((*out)[0]), Read(want[0])) << "run " << r;
    EXPECT_EQ(Read((*out)[1]), Read(want[1])) << "run " << r;
    EXPECT_EQ(Read(w), Read(w_eager)) << "run " << r;
  }
  ASSERT_TRUE(Sync().ok());
  const GraphStats s = g->GetStats();
  if (device_graphs) {
    EXPECT_GE(s.device_graph_runs + s.device_graph_fallbacks, 1);
    EXPECT_GE(s.device_graph_runs, 4) << "fallbacks: " << s.device_graph_fallbacks;
  } else {
    EXPECT_EQ(s.device_graph_runs, 0);
  }
}

// A FromVector inside the captured function makes a GPU constant: its node
// fills host bytes and copies them to the device (it wrote the host bytes
// straight into device memory once: a segfault of the scheduler thread).
// Fused optimizer steps make such constants (their hyperparameters), so a
// captured Adam step on the GPU is the user-level case.
void ConstantsAndAnAdamStepMatchEager(bool device_graphs) {
  EAGERVM_REQUIRE_CUDA();
  auto make_params = [] {
    return std::vector<Tensor>{
        FromVector<float>(std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f}, {4}, kGpu).RequiresGrad()};
  };
  std::vector<Tensor> p_graph = make_params(), p_eager = make_params();
  optim::Adam adam_graph(p_graph, 0.05), adam_eager(p_eager, 0.05);
  auto step = [](const Tensor& x, const std::vector<Tensor>& p, optim::Adam& adam) {
    const Tensor c = FromVector<float>(std::vector<float>{1, 2, 3, 4}, {4}, kGpu);
    EXPECT_TRUE(autograd::ZeroGrad(p).ok());
    Tensor loss = ops::Sum((p[0] * x + c) * (p[0] * x + c));
    EXPECT_TRUE(autograd::Backward(loss).ok());
    EXPECT_TRUE(adam.Step().ok());
    return std::vector<Tensor>{loss, c + x};
  };
  // One eager step each first: every grad() exists before the capture.
  const Tensor x0 = FromVector<float>(std::vector<float>{1, 1, 1, 1}, {4}, kGpu);
  (void)step(x0, p_graph, adam_graph);
  (void)step(x0, p_eager, adam_eager);
  GraphOptions options;
  options.device_graphs = device_graphs;
  absl::StatusOr<Graph> g = Graph::Capture(
      {TensorMeta{{4}, DType::kFloat32, kGpu}},
      [&](const std::vector<Tensor>& in) { return step(in[0], p_graph, adam_graph); }, options);
  ASSERT_TRUE(g.ok()) << g.status();
  for (int r = 0; r < 6; ++r) {
    const float v = 0.5f + 0.25f * static_cast<float>(r);
    Tensor x = FromVector<float>(std::vector<float>{v, -v, 2 * v, 1}, {4}, kGpu);
    absl::StatusOr<std::vector<Tensor>> out = g->Run({x});
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<Tensor> want = step(x, p_eager, adam_eager);
    EXPECT_EQ(Read((*out)[0]), Read(want[0])) << "run " << r;
    EXPECT_EQ(Read((*out)[1]), Read(want[1])) << "run " << r;
    EXPECT_EQ(Read(p_graph[0]), Read(p_eager[0])) << "run " << r;
  }
  ASSERT_TRUE(Sync().ok());
}

TEST(CudaGraph, ConstantsAndAnAdamStepMatchEagerWithReplay) {
  ConstantsAndAnAdamStepMatchEager(true);
}
TEST(CudaGraph, ConstantsAndAnAdamStepMatchEagerFlat) { ConstantsAndAnAdamStepMatchEager(false); }

TEST(CudaGraph, CudaGraphReplayMatchesEager) { ReplayMatchesEager(true); }
TEST(CudaGraph, FlatExecutorMatchesEager) { ReplayMatchesEager(false); }

}  // namespace
}  // namespace eagervm
