// The MLP in libtorch's C++ API, the same program as mlp_eagervm.cc: the
// same hand-written gradients, in-place SGD updates, one intra-op thread; on
// MlpConfig::device (CUDA only where this libtorch was built with it).
#include <torch/cuda.h>
#include <torch/torch.h>

#include "models/mlp.h"

namespace eagervm::models {
namespace {

class TorchTrainer final : public MlpTrainer {
 public:
  TorchTrainer(const MlpConfig& c, const Digits& d)
      : c_(c),
        device_(c.device.is_cpu() ? torch::Device(torch::kCPU)
                                  : torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(
                                                                    c.device.index()))) {
    torch::set_num_threads(1);
    const MlpParams init = InitialParams(c);
    const int64_t h = c.hidden, in = Digits::kPixels, out = Digits::kClasses;
    auto f = torch::TensorOptions().dtype(torch::kFloat32);
    auto vec = [&](const std::vector<float>& v, std::vector<int64_t> shape) {
      return torch::from_blob(const_cast<float*>(v.data()), shape, f).to(device_, false, true);
    };
    w1_ = vec(init.w1, {in, h});
    b1_ = vec(init.b1, {1, h});
    w2_ = vec(init.w2, {h, out});
    b2_ = vec(init.b2, {1, out});
    x_all_ = vec(d.images, {d.size(), in});
    y_all_ = torch::from_blob(const_cast<int64_t*>(d.labels.data()), {d.size()}, torch::kInt64)
                 .to(device_, false, true);
    for (int64_t start = 0; start + c.batch <= d.size(); start += c.batch) {
      x_.push_back(x_all_.slice(0, start, start + c.batch).clone());
      y_.push_back(y_all_.slice(0, start, start + c.batch).clone());
    }
    zero_ = torch::zeros({1, 1}, f.device(device_));
  }

  absl::Status Steps(int n, std::vector<float>* losses) override {
    if (c_.autograd) return AutogradSteps(n, losses);
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> kept;
    const double inv_batch = 1.0 / static_cast<double>(c_.batch);
    for (int i = 0; i < n; ++i, ++step_) {
      const size_t b = static_cast<size_t>(step_) % x_.size();
      const torch::Tensor& x = x_[b];
      const torch::Tensor& y = y_[b];
      torch::Tensor h = torch::mm(x, w1_) + b1_;
      torch::Tensor a = torch::relu(h);
      torch::Tensor logits = torch::mm(a, w2_) + b2_;
      torch::Tensor loss = torch::nn::functional::cross_entropy(logits, y);
      torch::Tensor dlogits =
          (torch::softmax(logits, 1) - torch::one_hot(y, Digits::kClasses).to(torch::kFloat32)) *
          inv_batch;
      torch::Tensor dw2 = torch::mm(a.t(), dlogits);
      torch::Tensor db2 = dlogits.sum(0, /*keepdim=*/true);
      torch::Tensor da = torch::mm(dlogits, w2_.t());
      torch::Tensor dh = torch::where(h > zero_, da, zero_);
      torch::Tensor dw1 = torch::mm(x.t(), dh);
      torch::Tensor db1 = dh.sum(0, true);
      w1_.add_(dw1, -c_.lr);
      b1_.add_(db1, -c_.lr);
      w2_.add_(dw2, -c_.lr);
      b2_.add_(db2, -c_.lr);
      if (losses != nullptr) kept.push_back(loss);
    }
    for (const torch::Tensor& l : kept) losses->push_back(l.item<float>());
    Synchronize();
    return absl::OkStatus();
  }

  absl::Status Evaluate(float* loss, float* accuracy) override {
    torch::NoGradGuard no_grad;
    torch::Tensor logits = torch::mm(torch::relu(torch::mm(x_all_, w1_) + b1_), w2_) + b2_;
    *loss = torch::nn::functional::cross_entropy(logits, y_all_).item<float>();
    *accuracy = (logits.argmax(1) == y_all_).to(torch::kFloat32).mean().item<float>();
    return absl::OkStatus();
  }

 private:
  // The same step by libtorch's autograd and torch::optim::SGD.
  absl::Status AutogradSteps(int n, std::vector<float>* losses) {
    if (sgd_ == nullptr) {
      for (torch::Tensor* t : {&w1_, &b1_, &w2_, &b2_}) t->requires_grad_(true);
      sgd_ = std::make_unique<torch::optim::SGD>(std::vector<torch::Tensor>{w1_, b1_, w2_, b2_},
                                                 torch::optim::SGDOptions(c_.lr));
    }
    std::vector<torch::Tensor> kept;
    for (int i = 0; i < n; ++i, ++step_) {
      const size_t b = static_cast<size_t>(step_) % x_.size();
      sgd_->zero_grad();
      torch::Tensor logits = torch::mm(torch::relu(torch::mm(x_[b], w1_) + b1_), w2_) + b2_;
      torch::Tensor loss = torch::nn::functional::cross_entropy(logits, y_[b]);
      loss.backward();
      sgd_->step();
      if (losses != nullptr) kept.push_back(loss.detach());
    }
    for (const torch::Tensor& l : kept) losses->push_back(l.item<float>());
    Synchronize();
    return absl::OkStatus();
  }

  // Steps() returns when the device has finished them, as eagervm's Sync().
  void Synchronize() const {
    if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
  }

  MlpConfig c_;
  torch::Device device_;
  std::unique_ptr<torch::optim::SGD> sgd_;
  torch::Tensor w1_, b1_, w2_, b2_, zero_, x_all_, y_all_;
  std::vector<torch::Tensor> x_, y_;
  int64_t step_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MlpTrainer>> MakeTorchTrainer(const MlpConfig& c, const Digits& d) {
  if (!c.device.is_cpu() && !torch::cuda::is_available()) {
    return absl::UnimplementedError("this libtorch has no CUDA (a CPU-only build, or no GPU)");
  }
  auto t = std::make_unique<TorchTrainer>(c, d);
  if (c.autograd) {  // one step, as the eagervm autograd trainers take
    if (absl::Status s = t->Steps(1, nullptr); !s.ok()) return s;
  }
  return std::unique_ptr<MlpTrainer>(std::move(t));
}

}  // namespace eagervm::models
