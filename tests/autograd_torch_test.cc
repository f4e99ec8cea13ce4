// Autograd against libtorch's: the same float32 programs (an MLP with
// cross-entropy, a transformer block with attention, LayerNorm and GELU)
// with the same weights give the same gradients within float32 tolerance.
// Built only where libtorch is (Debian: libtorch-dev), like dlpack_torch_test.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <random>
#include <vector>

#include "eagervm/eagervm.h"

namespace {

namespace evm = eagervm;

std::vector<float> RandomFloats(std::mt19937_64& rng, int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = std::uniform_real_distribution<float>(-scale, scale)(rng);
  return v;
}

struct Param {
  std::vector<int64_t> shape;
  std::vector<float> data;
  evm::Tensor ours;
  torch::Tensor theirs;
};

Param MakeParam(std::mt19937_64& rng, std::vector<int64_t> shape, float scale) {
  Param p;
  p.shape = shape;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  p.data = RandomFloats(rng, n, scale);
  evm::Shape s;
  for (int64_t d : shape) s.push_back(d);
  p.ours = evm::FromVector<float>(p.data, s).RequiresGrad();
  p.theirs = torch::from_blob(p.data.data(), shape, torch::kFloat32).clone().requires_grad_(true);
  return p;
}

void ExpectSameGrads(const std::vector<Param>& params, double tol) {
  for (size_t i = 0; i < params.size(); ++i) {
    SCOPED_TRACE("parameter " + std::to_string(i));
    absl::StatusOr<std::vector<float>> ours = params[i].ours.grad().ToVector<float>();
    ASSERT_TRUE(ours.ok()) << ours.status();
    torch::Tensor theirs = params[i].theirs.grad().contiguous();
    ASSERT_EQ(static_cast<int64_t>(ours->size()), theirs.numel());
    const float* t = theirs.data_ptr<float>();
    double scale = 0;
    for (int64_t e = 0; e < theirs.numel(); ++e) scale = std::max(scale, std::fabs(double(t[e])));
    for (int64_t e = 0; e < theirs.numel(); ++e)
      EXPECT_NEAR((*ours)[e], t[e], tol * (scale + 1e-3)) << "element " << e;
  }
}

TEST(AutogradVsTorch, MlpWithCrossEntropy) {
  torch::manual_seed(0);
  std::mt19937_64 rng(1);
  const int64_t n = 16, in = 12, hidden = 20, classes = 5;
  std::vector<float> x = RandomFloats(rng, n * in, 1.0f);
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < n; ++i) labels.push_back(i % classes);
  std::vector<Param> p = {MakeParam(rng, {in, hidden}, 0.5f), MakeParam(rng, {hidden}, 0.1f),
                          MakeParam(rng, {classes, hidden}, 0.5f), MakeParam(rng, {classes}, 0.1f)};
  {
    evm::Tensor xt = evm::FromVector<float>(x, evm::Shape{n, in});
    evm::Tensor lt = evm::FromVector<int64_t>(labels, evm::Shape{n});
    evm::Tensor h = evm::ops::Relu(evm::ops::MatMul(xt, p[0].ours) + p[1].ours);
    evm::Tensor logits = evm::ops::MatMul(h, p[2].ours, false, true) + p[3].ours;
    ASSERT_TRUE(evm::autograd::Backward(evm::ops::CrossEntropy(logits, lt)).ok());
  }
  {
    torch::Tensor xt = torch::from_blob(x.data(), {n, in}, torch::kFloat32);
    torch::Tensor lt = torch::from_blob(labels.data(), {n}, torch::kInt64);
    torch::Tensor h = torch::relu(torch::matmul(xt, p[0].theirs) + p[1].theirs);
    torch::Tensor logits = torch::matmul(h, p[2].theirs.t()) + p[3].theirs;
    torch::nn::functional::cross_entropy(logits, lt).backward();
  }
  ExpectSameGrads(p, 1e-5);
}

TEST(AutogradVsTorch, TransformerBlock) {
  torch::manual_seed(0);
  std::mt19937_64 rng(2);
  const int64_t batch = 2, seq = 6, d = 8;
  std::vector<float> x = RandomFloats(rng, batch * seq * d, 1.0f);
  std::vector<Param> p = {MakeParam(rng, {d}, 1.0f),       MakeParam(rng, {d}, 0.2f),
                          MakeParam(rng, {d, d}, 0.4f),    MakeParam(rng, {d, d}, 0.4f),
                          MakeParam(rng, {d, d}, 0.4f),    MakeParam(rng, {d, 2 * d}, 0.4f),
                          MakeParam(rng, {2 * d, d}, 0.4f)};
  const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(d));
  {
    namespace ops = evm::ops;
    evm::Tensor xt = evm::FromVector<float>(x, evm::Shape{batch * seq, d});
    evm::Tensor h = ops::LayerNorm(xt, p[0].ours, p[1].ours, 1e-5);
    auto heads = [&](const evm::Tensor& t) { return t.Reshape(evm::Shape{batch, seq, d}); };
    evm::Tensor q = heads(ops::MatMul(h, p[2].ours));
    evm::Tensor k = heads(ops::MatMul(h, p[3].ours));
    evm::Tensor v = heads(ops::MatMul(h, p[4].ours));
    evm::Tensor att = ops::Softmax(ops::BatchMatMul(q, k, false, true) * inv_sqrt_d, -1);
    evm::Tensor mixed = ops::BatchMatMul(att, v).Reshape(evm::Shape{batch * seq, d}) + xt;
    evm::Tensor out = ops::MatMul(ops::Gelu(ops::MatMul(mixed, p[5].ours)), p[6].ours) + mixed;
    ASSERT_TRUE(evm::autograd::Backward(ops::Mean(out * out)).ok());
  }
  {
    torch::Tensor xt = torch::from_blob(x.data(), {batch * seq, d}, torch::kFloat32);
    torch::Tensor h = torch::layer_norm(xt, {d}, p[0].theirs, p[1].theirs, 1e-5);
    auto heads = [&](const torch::Tensor& t) { return t.reshape({batch, seq, d}); };
    torch::Tensor q = heads(torch::matmul(h, p[2].theirs));
    torch::Tensor k = heads(torch::matmul(h, p[3].theirs));
    torch::Tensor v = heads(torch::matmul(h, p[4].theirs));
    torch::Tensor att = torch::softmax(torch::bmm(q, k.transpose(1, 2)) * inv_sqrt_d, -1);
    torch::Tensor mixed = torch::bmm(att, v).reshape({batch * seq, d}) + xt;
    torch::Tensor out =
        torch::matmul(torch::gelu(torch::matmul(mixed, p[5].theirs)), p[6].theirs) + mixed;
    (out * out).mean().backward();
  }
  ExpectSameGrads(p, 2e-5);
}

}  // namespace
