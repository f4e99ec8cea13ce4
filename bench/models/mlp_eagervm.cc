// The MLP through eagervm's public API, eagerly or as a captured Graph, on
// the CPU or a CUDA device (MlpConfig::device: the same code, the tensors
// made there).
#include <cstdlib>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "eagervm/eagervm.h"
#include "models/mlp.h"

namespace eagervm::models {
namespace {

namespace ops = eagervm::ops;

struct Weights {
  Tensor w1, b1, w2, b2;
};

// One SGD step on (x [B, 64], y int64 [B]); returns the loss before the
// update. Parameters are updated in place (Axpy), so the same code runs
// eagerly and inside Graph::Capture.
Tensor TrainStep(const Tensor& x, const Tensor& y, const Weights& p, const Tensor& zero,
                 Scalar inv_batch, Scalar minus_lr) {
  Tensor h = ops::MatMul(x, p.w1) + p.b1;
  Tensor a = ops::Relu(h);
  Tensor logits = ops::MatMul(a, p.w2) + p.b2;
  Tensor loss = ops::CrossEntropy(logits, y);
  // d loss / d logits = (softmax - onehot) / B
  Tensor dlogits =
      ops::MulScalar(ops::Softmax(logits, 1) - ops::OneHot(y, Digits::kClasses), inv_batch);
  Tensor dw2 = ops::MatMul(a, dlogits, /*transpose_a=*/true, /*transpose_b=*/false);
  Tensor db2 = ops::Sum(dlogits, 0, /*keepdim=*/true);
  Tensor da = ops::MatMul(dlogits, p.w2, false, true);
  Tensor dh = ops::Where(ops::Gt(h, zero), da, zero);
  Tensor dw1 = ops::MatMul(x, dh, true, false);
  Tensor db1 = ops::Sum(dh, 0, true);
  absl::Status s = ops::Axpy(p.w1, minus_lr, dw1);
  if (s.ok()) s = ops::Axpy(p.b1, minus_lr, db1);
  if (s.ok()) s = ops::Axpy(p.w2, minus_lr, dw2);
  if (s.ok()) s = ops::Axpy(p.b2, minus_lr, db2);
  return s.ok() ? loss : Tensor::Error(s);
}

// The same step by autograd: forward, Backward, Sgd::Step (in-place
// updates, so it runs eagerly and inside Graph::Capture). Returns the loss.
Tensor AutogradStep(const Tensor& x, const Tensor& y, const Weights& p, optim::Sgd& sgd) {
  const std::vector<Tensor> params = {p.w1, p.b1, p.w2, p.b2};
  absl::Status s = autograd::ZeroGrad(params);
  Tensor h = ops::MatMul(x, p.w1) + p.b1;
  Tensor logits = ops::MatMul(ops::Relu(h), p.w2) + p.b2;
  Tensor loss = ops::CrossEntropy(logits, y);
  if (s.ok()) s = autograd::Backward(loss);
  if (s.ok()) s = sgd.Step();
  return s.ok() ? loss.Detach() : Tensor::Error(s);
}

class EagervmTrainer final : public MlpTrainer {
 public:
  EagervmTrainer(const MlpConfig& c, const Digits& d) : c_(c) {
    const MlpParams init = InitialParams(c);
    const int64_t h = c.hidden, in = Digits::kPixels, out = Digits::kClasses;
    const Device dev = c.device;
    p_ = {FromVector(init.w1, {in, h}, dev), FromVector(init.b1, {1, h}, dev),
          FromVector(init.w2, {h, out}, dev), FromVector(init.b2, {1, out}, dev)};
    if (c.autograd) {
      for (Tensor* t : {&p_.w1, &p_.b1, &p_.w2, &p_.b2}) (void)t->RequiresGrad();
      sgd_.emplace(std::vector<Tensor>{p_.w1, p_.b1, p_.w2, p_.b2}, c.lr);
    }
    zero_ = Zeros({1, 1}, DType::kFloat32, dev);
    for (int64_t start = 0; start + c.batch <= d.size(); start += c.batch) {
      x_.push_back(FromVector<float>(
          absl::MakeConstSpan(d.images.data() + start * in, static_cast<size_t>(c.batch * in)),
          {c.batch, in}, dev));
      y_.push_back(FromVector<int64_t>(
          absl::MakeConstSpan(d.labels.data() + start, static_cast<size_t>(c.batch)), {c.batch},
          dev));
    }
    x_all_ = FromVector(d.images, {d.size(), in}, dev);
    y_all_ = FromVector(d.labels, {d.size()}, dev);
  }

  absl::Status Capture() {
    // MLP_GRAPH_FUSE=0: the plan without elementwise fusion (to compare).
    GraphOptions options;
    const char* fuse = std::getenv("MLP_GRAPH_FUSE");
    options.fuse = fuse == nullptr || std::string_view(fuse) != "0";
    options.device_graphs = c_.device_graphs;
    absl::StatusOr<Graph> g = Graph::Capture(
        {x_[0].meta(), y_[0].meta()},
        [this](const std::vector<Tensor>& in) { return std::vector<Tensor>{Step(in[0], in[1])}; },
        options);
    if (!g.ok()) return g.status();
    graph_ = *std::move(g);
    return absl::OkStatus();
  }

  absl::Status Steps(int n, std::vector<float>* losses) override {
    std::vector<Tensor> kept;
    for (int i = 0; i < n; ++i, ++step_) {
      const size_t b = static_cast<size_t>(step_) % x_.size();
      Tensor loss;
      if (graph_) {
        const Tensor in[] = {x_[b], y_[b]};
        absl::StatusOr<std::vector<Tensor>> out = graph_->Run(in);
        if (!out.ok()) return out.status();
        loss = (*out)[0];
      } else {
        loss = Step(x_[b], y_[b]);
      }
      if (!loss.ok()) return loss.status();
      if (losses != nullptr) kept.push_back(std::move(loss));
    }
    for (const Tensor& l : kept) {
      absl::StatusOr<float> v = l.Item<float>();
      if (!v.ok()) return v.status();
      losses->push_back(*v);
    }
    return Sync();
  }

  std::string Notes() const override {
    if (!graph_) return {};
    const GraphStats st = graph_->GetStats();
    return absl::StrCat(st.runs, " runs, ", st.nodes, " nodes per run, ", st.segments,
                        " segments; ", st.device_graph_runs, " segments replayed as CUDA graphs, ",
                        st.device_graph_fallbacks, " recordings failed");
  }

  absl::Status Evaluate(float* loss, float* accuracy) override {
    autograd::NoGradGuard no_grad;
    Tensor logits = ops::MatMul(ops::Relu(ops::MatMul(x_all_, p_.w1) + p_.b1), p_.w2) + p_.b2;
    absl::StatusOr<float> l = ops::CrossEntropy(logits, y_all_).Item<float>();
    if (!l.ok()) return l.status();
    absl::StatusOr<float> acc =
        ops::Mean(ops::Cast(ops::Eq(ops::Argmax(logits, 1), y_all_), DType::kFloat32))
            .Item<float>();
    if (!acc.ok()) return acc.status();
    *loss = *l;
    *accuracy = *acc;
    return absl::OkStatus();
  }

 private:
  Tensor Step(const Tensor& x, const Tensor& y) {
    return sgd_ ? AutogradStep(x, y, p_, *sgd_) : TrainStep(x, y, p_, zero_, InvBatch(), MinusLr());
  }
  Scalar InvBatch() const { return Scalar(1.0f / static_cast<float>(c_.batch)); }
  Scalar MinusLr() const { return Scalar(-c_.lr); }

  MlpConfig c_;
  Weights p_;
  Tensor zero_;
  std::vector<Tensor> x_, y_;
  Tensor x_all_, y_all_;
  std::optional<optim::Sgd> sgd_;  // with autograd
  std::optional<Graph> graph_;
  int64_t step_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MlpTrainer>> MakeEagervmTrainer(const MlpConfig& c, const Digits& d,
                                                               bool graph) {
  auto t = std::make_unique<EagervmTrainer>(c, d);
  if (c.autograd) {  // one eager step: every grad() exists before a capture
    if (absl::Status s = t->Steps(1, nullptr); !s.ok()) return s;
  }
  if (graph) {
    if (absl::Status s = t->Capture(); !s.ok()) return s;
  }
  if (absl::Status s = Sync(); !s.ok()) return s;
  return std::unique_ptr<MlpTrainer>(std::move(t));
}

}  // namespace eagervm::models
