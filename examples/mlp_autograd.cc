// A 2-layer MLP classifier trained with autograd and Adam: eagerly, then
// with the training step captured as a graph. The data are three Gaussian
// blobs in 8 dimensions, made here so the example needs no files.
//
//   mlp_autograd [--steps=N] [--quiet]
// Exits non-zero unless the final training accuracy is at least 90% in both
// modes.
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"

namespace {

using namespace eagervm;

constexpr int kIn = 8, kHidden = 32, kClasses = 3, kBatch = 96;

struct Data {
  Tensor x;       // [kBatch, kIn] float32
  Tensor labels;  // [kBatch] int64
};

Data MakeBlobs(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0, 0.6f);
  std::vector<float> x;
  std::vector<int64_t> labels;
  for (int i = 0; i < kBatch; ++i) {
    const int c = i % kClasses;
    for (int d = 0; d < kIn; ++d) x.push_back((d % kClasses == c ? 2.0f : 0.0f) + noise(rng));
    labels.push_back(c);
  }
  return {FromVector<float>(x, Shape{kBatch, kIn}), FromVector<int64_t>(labels, Shape{kBatch})};
}

struct Mlp {
  Tensor w1, b1, w2, b2;
  explicit Mlp(uint64_t seed)
      : w1(ops::MulScalar(RandomNormal({kIn, kHidden}, DType::kFloat32, Device::Cpu(), seed), 0.3)
               .RequiresGrad()),
        b1(Zeros({kHidden}, DType::kFloat32).RequiresGrad()),
        w2(ops::MulScalar(
               RandomNormal({kClasses, kHidden}, DType::kFloat32, Device::Cpu(), seed + 1), 0.3)
               .RequiresGrad()),
        b2(Zeros({kClasses}, DType::kFloat32).RequiresGrad()) {}
  std::vector<Tensor> params() const { return {w1, b1, w2, b2}; }
  Tensor Logits(const Tensor& x) const {
    Tensor h = ops::Relu(ops::MatMul(x, w1) + b1);
    return ops::MatMul(h, w2, /*transpose_a=*/false, /*transpose_b=*/true) + b2;
  }
};

// One training step: forward, backward, update. Queues work; never waits.
Tensor Step(const Mlp& m, optim::Adam& adam, const Tensor& x, const Tensor& labels) {
  absl::Status s = autograd::ZeroGrad(m.params());
  Tensor loss = ops::CrossEntropy(m.Logits(x), labels);
  if (s.ok()) s = autograd::Backward(loss);
  if (s.ok()) s = adam.Step();
  if (!s.ok()) return Tensor::Error(s);
  return loss.Detach();
}

double Accuracy(const Mlp& m, const Data& d) {
  autograd::NoGradGuard no_grad;
  Tensor hits =
      ops::Sum(ops::Cast(ops::Eq(ops::Argmax(m.Logits(d.x), 1), d.labels), DType::kFloat32));
  absl::StatusOr<float> n = hits.Item<float>();
  return n.ok() ? *n / kBatch : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 200;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--steps=", 8) == 0) steps = std::stoi(argv[i] + 8);
    if (std::strcmp(argv[i], "--quiet") == 0) quiet = true;
  }
  const Data data = MakeBlobs(42);

  // Eager.
  Mlp eager(7);
  optim::Adam adam_eager(eager.params(), 0.01);
  Tensor loss;
  for (int i = 0; i < steps; ++i) {
    loss = Step(eager, adam_eager, data.x, data.labels);
    if (!quiet && i % 50 == 0) std::printf("eager step %3d  loss %.4f\n", i, *loss.Item<float>());
  }
  absl::StatusOr<float> eager_loss = loss.Item<float>();
  if (!eager_loss.ok()) {
    std::fprintf(stderr, "eager training failed: %s\n", eager_loss.status().ToString().c_str());
    return 1;
  }

  // Graph: one eager step (so every grad() exists), then capture the step.
  Mlp graph(7);
  optim::Adam adam_graph(graph.params(), 0.01);
  loss = Step(graph, adam_graph, data.x, data.labels);
  absl::StatusOr<Graph> g =
      Graph::Capture({data.x.meta(), data.labels.meta()},
                     [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
                       return {Step(graph, adam_graph, in[0], in[1])};
                     });
  if (!g.ok()) {
    std::fprintf(stderr, "capture failed: %s\n", g.status().ToString().c_str());
    return 1;
  }
  for (int i = 1; i < steps; ++i) {
    absl::StatusOr<std::vector<Tensor>> out = g->Run({data.x, data.labels});
    if (!out.ok()) {
      std::fprintf(stderr, "run failed: %s\n", out.status().ToString().c_str());
      return 1;
    }
    loss = (*out)[0];
    if (!quiet && i % 50 == 0) std::printf("graph step %3d  loss %.4f\n", i, *loss.Item<float>());
  }
  absl::StatusOr<float> graph_loss = loss.Item<float>();
  if (!graph_loss.ok()) {
    std::fprintf(stderr, "graph training failed: %s\n", graph_loss.status().ToString().c_str());
    return 1;
  }

  const double acc_eager = Accuracy(eager, data), acc_graph = Accuracy(graph, data);
  std::printf("final loss: eager %.5f, graph %.5f; accuracy: eager %.3f, graph %.3f\n", *eager_loss,
              *graph_loss, acc_eager, acc_graph);
  return acc_eager >= 0.9 && acc_graph >= 0.9 && *eager_loss == *graph_loss ? 0 : 1;
}
