// The transformer language model in libtorch's C++ API, the same program as
// transformer_eagervm.cc: its autograd and Adam, one intra-op thread.
#include <torch/torch.h>

#include <cmath>
#include <map>

#include "models/transformer.h"

namespace eagervm::models {
namespace {

class TorchLm final : public LmTrainer {
 public:
  TorchLm(const LmConfig& c, const Corpus& corpus) : c_(c) {
    torch::set_num_threads(1);
    const auto f = torch::TensorOptions().dtype(torch::kFloat32);
    std::vector<torch::Tensor> params;
    for (LmParam& p : InitialLmParams(c, static_cast<int64_t>(corpus.vocab.size()))) {
      torch::Tensor t = torch::from_blob(p.values.data(), p.shape, f).clone().requires_grad_(true);
      by_name_[p.name] = t;
      params.push_back(t);
    }
    std::vector<float> mask = CausalMask(c.context);
    mask_ = torch::from_blob(mask.data(), {c.context, c.context}, f).clone();
    for (LmBatch& b : MakeBatches(c, corpus)) {
      x_.push_back(torch::from_blob(b.x.data(), {c.batch, c.context}, torch::kInt64).clone());
      y_.push_back(torch::from_blob(b.y.data(), {c.batch * c.context}, torch::kInt64).clone());
    }
    adam_ = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(c.lr));
  }

  absl::Status Steps(int n, std::vector<float>* losses) override {
    std::vector<torch::Tensor> kept;
    for (int i = 0; i < n; ++i, ++step_) {
      const size_t b = static_cast<size_t>(step_) % x_.size();
      adam_->zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(Forward(x_[b]), y_[b]);
      loss.backward();
      adam_->step();
      if (losses != nullptr) kept.push_back(loss.detach());
    }
    for (const torch::Tensor& l : kept) losses->push_back(l.item<float>());
    return absl::OkStatus();
  }

  int64_t steps_done() const override { return step_; }

  absl::Status Generate(const std::vector<int64_t>& prompt, int n,
                        std::vector<int64_t>* out) override {
    torch::NoGradGuard no_grad;
    std::vector<int64_t> window(prompt.end() - c_.context, prompt.end());
    for (int i = 0; i < n; ++i) {
      torch::Tensor ids = torch::from_blob(window.data(), {1, c_.context}, torch::kInt64);
      const int64_t id =
          Forward(ids).slice(0, c_.context - 1, c_.context).argmax(1).item<int64_t>();
      out->push_back(id);
      window.erase(window.begin());
      window.push_back(id);
    }
    return absl::OkStatus();
  }

 private:
  const torch::Tensor& P(const std::string& name) const { return by_name_.at(name); }

  torch::Tensor Forward(const torch::Tensor& ids) const {
    const int64_t b = ids.size(0), t = c_.context, d = c_.d, h = c_.heads, dh = d / h;
    torch::Tensor x =
        torch::index_select(P("tok_emb"), 0, ids.reshape({-1})).reshape({b, t, d}) + P("pos_emb");
    const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
    namespace F = torch::nn::functional;
    for (int64_t l = 0; l < c_.layers; ++l) {
      const std::string pre = "l" + std::to_string(l) + ".";
      torch::Tensor a =
          torch::layer_norm(x, {d}, P(pre + "ln1_w"), P(pre + "ln1_b"), 1e-5).reshape({b * t, d});
      auto heads = [&](const torch::Tensor& proj) {
        std::vector<torch::Tensor> parts = torch::split(proj, dh, 1);
        for (torch::Tensor& p : parts) p = p.reshape({b, t, dh});
        return torch::cat(parts, 0);
      };
      torch::Tensor q = heads(torch::mm(a, P(pre + "wq")));
      torch::Tensor k = heads(torch::mm(a, P(pre + "wk")));
      torch::Tensor v = heads(torch::mm(a, P(pre + "wv")));
      torch::Tensor s = torch::bmm(q, k.transpose(1, 2)) * scale + mask_;
      torch::Tensor o = torch::bmm(torch::softmax(s, 2), v);
      torch::Tensor joined = torch::cat(torch::split(o, b, 0), 2).reshape({b * t, d});
      x = x + (torch::mm(joined, P(pre + "wo")) + P(pre + "bo")).reshape({b, t, d});
      torch::Tensor m =
          torch::layer_norm(x, {d}, P(pre + "ln2_w"), P(pre + "ln2_b"), 1e-5).reshape({b * t, d});
      m = torch::mm(torch::gelu(torch::mm(m, P(pre + "w1")) + P(pre + "b1")), P(pre + "w2")) +
          P(pre + "b2");
      x = x + m.reshape({b, t, d});
    }
    torch::Tensor f = torch::layer_norm(x, {d}, P("lnf_w"), P("lnf_b"), 1e-5).reshape({b * t, d});
    return torch::mm(f, P("head")) + P("head_b");
  }

  LmConfig c_;
  std::map<std::string, torch::Tensor> by_name_;
  torch::Tensor mask_;
  std::vector<torch::Tensor> x_, y_;
  std::unique_ptr<torch::optim::Adam> adam_;
  int64_t step_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LmTrainer>> MakeTorchLm(const LmConfig& c, const Corpus& corpus) {
  if (!c.device.is_cpu())
    return absl::UnimplementedError("the libtorch transformer runs on the CPU");
  return std::unique_ptr<LmTrainer>(std::make_unique<TorchLm>(c, corpus));
}

}  // namespace eagervm::models
