// The transformer language model through eagervm's public API: autograd
// and Adam, eagerly or with the training step captured as a Graph, on the
// CPU or a CUDA device (LmConfig::device).
#include <cmath>
#include <map>
#include <optional>

#include "eagervm/eagervm.h"
#include "models/transformer.h"

namespace eagervm::models {
namespace {

namespace ops = eagervm::ops;

class EagervmLm final : public LmTrainer {
 public:
  EagervmLm(const LmConfig& c, const Corpus& corpus)
      : c_(c), vocab_(static_cast<int64_t>(corpus.vocab.size())) {
    for (LmParam& p : InitialLmParams(c, vocab_)) {
      Tensor t = FromVector(p.values, Shape(p.shape), c.device).RequiresGrad();
      by_name_[p.name] = t;
      params_.push_back(t);
    }
    mask_ = FromVector(CausalMask(c.context), Shape{c.context, c.context}, c.device);
    for (const LmBatch& b : MakeBatches(c, corpus)) {
      x_.push_back(FromVector(b.x, Shape{c.batch, c.context}, c.device));
      y_.push_back(FromVector(b.y, Shape{c.batch * c.context}, c.device));
    }
    adam_.emplace(params_, c.lr);
  }

  absl::Status CaptureGraphs() {
    // One eager step first: every grad() must exist before capture.
    if (absl::Status s = Steps(1, &first_loss_); !s.ok()) return s;
    absl::StatusOr<Graph> g =
        Graph::Capture({x_[0].meta(), y_[0].meta()}, [this](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{TrainStep(in[0], in[1])};
        });
    if (!g.ok()) return g.status();
    train_ = *std::move(g);
    autograd::NoGradGuard no_grad;  // inference records no tape
    absl::StatusOr<Graph> f = Graph::Capture(
        {TensorMeta{Shape{1, c_.context}, DType::kInt64, c_.device}},
        [this](const std::vector<Tensor>& in) { return std::vector<Tensor>{NextToken(in[0])}; });
    if (!f.ok()) return f.status();
    infer_ = *std::move(f);
    return absl::OkStatus();
  }

  absl::Status Steps(int n, std::vector<float>* losses) override {
    std::vector<Tensor> kept;
    for (int i = 0; i < n; ++i, ++step_) {
      const size_t b = static_cast<size_t>(step_) % x_.size();
      Tensor loss;
      if (train_) {
        const Tensor in[] = {x_[b], y_[b]};
        absl::StatusOr<std::vector<Tensor>> out = train_->Run(in);
        if (!out.ok()) return out.status();
        loss = (*out)[0];
      } else {
        loss = TrainStep(x_[b], y_[b]);
      }
      if (!loss.ok()) return loss.status();
      if (losses != nullptr) kept.push_back(std::move(loss));
    }
    if (losses != nullptr && !first_loss_.empty()) {
      // The eager step before capture, reported as the first graph step's.
      losses->insert(losses->end(), first_loss_.begin(), first_loss_.end());
      first_loss_.clear();
    }
    for (const Tensor& l : kept) {
      absl::StatusOr<float> v = l.Item<float>();
      if (!v.ok()) return v.status();
      losses->push_back(*v);
    }
    return Sync();
  }

  int64_t steps_done() const override { return step_; }

  absl::Status Generate(const std::vector<int64_t>& prompt, int n,
                        std::vector<int64_t>* out) override {
    std::vector<int64_t> window(prompt.end() - c_.context, prompt.end());
    autograd::NoGradGuard no_grad;
    for (int i = 0; i < n; ++i) {
      const Tensor ids = FromVector(window, Shape{1, c_.context}, c_.device);
      Tensor next;
      if (infer_) {
        const Tensor in[] = {ids};
        absl::StatusOr<std::vector<Tensor>> r = infer_->Run(in);
        if (!r.ok()) return r.status();
        next = (*r)[0];
      } else {
        next = NextToken(ids);
      }
      absl::StatusOr<int64_t> id = next.Item<int64_t>();
      if (!id.ok()) return id.status();
      out->push_back(*id);
      window.erase(window.begin());
      window.push_back(*id);
    }
    return absl::OkStatus();
  }

 private:
  const Tensor& P(const std::string& name) const { return by_name_.at(name); }

  // ids [B, T] -> logits [B * T, vocab].
  Tensor Forward(const Tensor& ids) const {
    const int64_t b = ids.shape()[0], t = c_.context, d = c_.d, h = c_.heads, dh = d / h;
    Tensor x = ops::IndexSelect(P("tok_emb"), 0, ids) + P("pos_emb");  // [B, T, d]
    const Scalar scale(1.0f / std::sqrt(static_cast<float>(dh)));
    for (int64_t l = 0; l < c_.layers; ++l) {
      const std::string pre = "l" + std::to_string(l) + ".";
      Tensor a = ops::LayerNorm(x, P(pre + "ln1_w"), P(pre + "ln1_b")).Reshape({b * t, d});
      // Heads: the projections' column blocks, stacked along the batch axis.
      auto heads = [&](const Tensor& proj) {
        std::vector<Tensor> parts = ops::Split(proj, h, 1);
        for (Tensor& p : parts) p = p.Reshape({b, t, dh});
        return ops::Concat(parts, 0);  // [H * B, T, dh]
      };
      Tensor q = heads(ops::MatMul(a, P(pre + "wq")));
      Tensor k = heads(ops::MatMul(a, P(pre + "wk")));
      Tensor v = heads(ops::MatMul(a, P(pre + "wv")));
      Tensor s = ops::MulScalar(ops::BatchMatMul(q, k, false, true), scale) + mask_;
      Tensor o = ops::BatchMatMul(ops::Softmax(s, 2), v);  // [H * B, T, dh]
      Tensor joined = ops::Concat(ops::Split(o, h, 0), 2).Reshape({b * t, d});
      x = x + (ops::MatMul(joined, P(pre + "wo")) + P(pre + "bo")).Reshape({b, t, d});
      Tensor m = ops::LayerNorm(x, P(pre + "ln2_w"), P(pre + "ln2_b")).Reshape({b * t, d});
      m = ops::MatMul(ops::Gelu(ops::MatMul(m, P(pre + "w1")) + P(pre + "b1")), P(pre + "w2")) +
          P(pre + "b2");
      x = x + m.Reshape({b, t, d});
    }
    Tensor f = ops::LayerNorm(x, P("lnf_w"), P("lnf_b")).Reshape({b * t, d});
    return ops::MatMul(f, P("head")) + P("head_b");
  }

  Tensor TrainStep(const Tensor& x, const Tensor& y) {
    absl::Status s = autograd::ZeroGrad(params_);
    Tensor loss = ops::CrossEntropy(Forward(x), y);
    if (s.ok()) s = autograd::Backward(loss);
    if (s.ok()) s = adam_->Step();
    return s.ok() ? loss : Tensor::Error(s);
  }

  // ids [1, T] -> the argmax id after the last position, shape [1].
  Tensor NextToken(const Tensor& ids) const {
    return ops::Argmax(Forward(ids).Slice(c_.context - 1, c_.context), 1);
  }

  LmConfig c_;
  int64_t vocab_;
  std::map<std::string, Tensor> by_name_;
  std::vector<Tensor> params_;
  Tensor mask_;
  std::vector<Tensor> x_, y_;
  std::optional<optim::Adam> adam_;
  std::optional<Graph> train_, infer_;
  std::vector<float> first_loss_;
  int64_t step_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<LmTrainer>> MakeEagervmLm(const LmConfig& c, const Corpus& corpus,
                                                         bool graph) {
  auto t = std::make_unique<EagervmLm>(c, corpus);
  if (graph) {
    if (absl::Status s = t->CaptureGraphs(); !s.ok()) return s;
  }
  if (absl::Status s = Sync(); !s.ok()) return s;
  return std::unique_ptr<LmTrainer>(std::move(t));
}

}  // namespace eagervm::models
