// The optimizers on CUDA: the fused updates (SgdStep, SgdMomentumStep,
// AdamStep) bitwise equal to the CPU kernels' over several steps, float32
// and float64, and a tiny model (an embedding lookup, a linear layer,
// CrossEntropy) trained a few steps with autograd and Adam or Sgd on the
// GPU, as on the CPU: its backward runs IndexAdd (the lookup's gradient) and
// OneHot (CrossEntropy's), its update the fused kernels. Needs a GPU; skips
// otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"
#include "ops/optim_ops.h"

namespace eagervm {
namespace {

using testing_cuda::kGpu;

class CudaOptim : public ::testing::Test {
 protected:
  void SetUp() override { EAGERVM_REQUIRE_CUDA(); }
};

// The bit patterns of a float32 or float64 tensor's elements (any device).
std::vector<uint64_t> Bits(const Tensor& t) {
  std::vector<uint64_t> out;
  EXPECT_TRUE(t.ok()) << t.status();
  const Tensor h = t.To(Device::Cpu());
  if (t.dtype() == DType::kFloat32) {
    absl::StatusOr<std::vector<float>> v = h.ToVector<float>();
    EXPECT_TRUE(v.ok()) << v.status();
    if (!v.ok()) return out;
    for (float x : *v) {
      uint32_t b;
      std::memcpy(&b, &x, sizeof b);
      out.push_back(b);
    }
  } else {
    absl::StatusOr<std::vector<double>> v = h.ToVector<double>();
    EXPECT_TRUE(v.ok()) << v.status();
    if (!v.ok()) return out;
    for (double x : *v) {
      uint64_t b;
      std::memcpy(&b, &x, sizeof b);
      out.push_back(b);
    }
  }
  return out;
}

std::vector<double> Doubles(const Tensor& t) {
  absl::StatusOr<std::vector<double>> v =
      ops::Cast(t.To(Device::Cpu()), DType::kFloat64).ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>{};
}

Tensor RandomOf(std::mt19937_64& rng, Shape shape, DType dtype, double lo, double hi) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  std::uniform_real_distribution<double> d(lo, hi);
  for (double& x : v) x = d(rng);
  return ops::Cast(FromVector<double>(v, shape), dtype);
}

// One optimizer state on one device: param and its buffers.
struct State {
  Tensor p, buf, m, v;
};
State StateOn(const State& cpu, Device d) {
  return {cpu.p.To(d), cpu.buf.To(d), cpu.m.To(d), cpu.v.To(d)};
}

// The fused update `step` applied to a CPU and a GPU copy of the same state
// with the same gradients, `steps` times: every tensor bitwise equal after
// each step.
using Step = std::function<absl::Status(State&, const Tensor& grad, int t)>;
void ExpectBitwiseAsCpu(const std::string& what, DType dt, Shape shape, const Step& step,
                        int steps = 4) {
  SCOPED_TRACE(what + " " + std::string(ToString(dt)) + " " + shape.ToString());
  std::mt19937_64 rng(17);
  State cpu{RandomOf(rng, shape, dt, -1, 1), RandomOf(rng, shape, dt, -0.1, 0.1),
            RandomOf(rng, shape, dt, -0.1, 0.1), RandomOf(rng, shape, dt, 0, 0.01)};
  cpu = {cpu.p.Contiguous(), cpu.buf.Contiguous(), cpu.m.Contiguous(), cpu.v.Contiguous()};
  State gpu = StateOn(cpu, kGpu);
  const std::vector<uint64_t> initial = Bits(cpu.p);
  for (int t = 1; t <= steps; ++t) {
    Tensor g = RandomOf(rng, shape, dt, -2, 2);
    ASSERT_TRUE(step(cpu, g, t).ok());
    absl::Status s = step(gpu, g.To(kGpu), t);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(gpu.p.device(), kGpu);
    EXPECT_EQ(Bits(gpu.p), Bits(cpu.p)) << "param, step " << t;
    EXPECT_EQ(Bits(gpu.buf), Bits(cpu.buf)) << "momentum buffer, step " << t;
    EXPECT_EQ(Bits(gpu.m), Bits(cpu.m)) << "m, step " << t;
    EXPECT_EQ(Bits(gpu.v), Bits(cpu.v)) << "v, step " << t;
    if (shape.numel() > 0) EXPECT_NE(Bits(gpu.p), initial) << "the step changed nothing";
  }
}

Step Sgd(double lr, double momentum, double weight_decay) {
  return [=](State& s, const Tensor& g, int) {
    if (momentum == 0) return internal::SgdStep(s.p, g, nullptr, nullptr, lr, weight_decay);
    const Tensor mom = internal::FusedHyperparameters(s.p.device(), s.p.dtype(), {momentum});
    return internal::SgdStep(s.p, g, &s.buf, &mom, lr, weight_decay);
  };
}

// s1 and r2 as optim::Adam makes them for step t, on the state's device.
Step Adam(double lr, double beta1, double beta2, double eps) {
  return [=](State& s, const Tensor& g, int t) {
    const Device d = s.p.device();
    const DType dt = s.p.dtype();
    const Tensor s1 = Full(Shape{}, lr / (1 - std::pow(beta1, t)), dt, d);
    const Tensor r2 = Full(Shape{}, 1 / std::sqrt(1 - std::pow(beta2, t)), dt, d);
    const Tensor betas =
        internal::FusedHyperparameters(d, dt, {beta1, 1 - beta1, beta2, 1 - beta2});
    return internal::AdamStep(s.p, g, s.m, s.v, s1, r2, betas, eps);
  };
}

TEST_F(CudaOptim, TheFusedKernelsExistOnCudaForFloat32AndFloat64) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    EXPECT_TRUE(internal::HasFusedSgdKernel(kGpu, dt, false)) << ToString(dt);
    EXPECT_TRUE(internal::HasFusedSgdKernel(kGpu, dt, true)) << ToString(dt);
    EXPECT_TRUE(internal::HasFusedAdamKernel(kGpu, dt)) << ToString(dt);
  }
  EXPECT_FALSE(internal::HasFusedAdamKernel(kGpu, DType::kFloat16));  // unfused, as on the CPU
}

TEST_F(CudaOptim, FusedUpdatesAreBitwiseTheCpuKernels) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (Shape shape : {Shape{5, 7}, Shape{1000, 33}, Shape{0}}) {
      ExpectBitwiseAsCpu("Sgd", dt, shape, Sgd(0.1, 0, 0));
      ExpectBitwiseAsCpu("Sgd weight decay", dt, shape, Sgd(0.07, 0, 0.01));
      ExpectBitwiseAsCpu("Sgd momentum", dt, shape, Sgd(0.1, 0.9, 0));
      ExpectBitwiseAsCpu("Sgd momentum weight decay", dt, shape, Sgd(0.3, 0.85, 0.013));
      ExpectBitwiseAsCpu("Adam", dt, shape, Adam(0.01, 0.9, 0.999, 1e-8), 6);
      ExpectBitwiseAsCpu("Adam other betas", dt, shape, Adam(0.003, 0.8, 0.95, 1e-3), 6);
    }
  }
  ASSERT_TRUE(Sync().ok());
}

// A tiny classifier: an embedding table looked up by token ids, a linear
// layer, CrossEntropy; trained `steps` steps. Returns the losses and the
// final parameters (on the host).
struct Trained {
  std::vector<double> losses;
  std::vector<std::vector<double>> params;
};
Trained Train(Device d, DType dt, bool adam, int steps) {
  std::mt19937_64 rng(99);
  const Tensor table = RandomOf(rng, {10, 4}, dt, -1, 1).To(d).RequiresGrad();
  const Tensor w = RandomOf(rng, {4, 3}, dt, -1, 1).To(d).RequiresGrad();
  const Tensor b = RandomOf(rng, {3}, dt, -0.1, 0.1).To(d).RequiresGrad();
  const Tensor tokens = FromVector<int64_t>({1, 7, 7, 3, 0, 9, 1, 4}, {8}, d);
  const Tensor labels = FromVector<int64_t>({0, 2, 2, 1, 0, 1, 0, 2}, {8}, d);
  const std::vector<Tensor> params = {table, w, b};
  std::unique_ptr<optim::Adam> opt_adam;
  std::unique_ptr<optim::Sgd> opt_sgd;
  if (adam) {
    opt_adam = std::make_unique<optim::Adam>(params, 0.01);
  } else {
    opt_sgd = std::make_unique<optim::Sgd>(params, 0.1, 0.9, 0.01);
  }
  Trained run;
  for (int s = 0; s < steps; ++s) {
    EXPECT_TRUE(autograd::ZeroGrad(params).ok());
    const Tensor h = ops::IndexSelect(table, 0, tokens);  // [8, 4]
    const Tensor loss = ops::CrossEntropy(ops::MatMul(h, w) + b, labels);
    absl::Status st = autograd::Backward(loss);
    EXPECT_TRUE(st.ok()) << st;
    st = adam ? opt_adam->Step() : opt_sgd->Step();
    EXPECT_TRUE(st.ok()) << st;
    absl::StatusOr<double> l = ops::Cast(loss, DType::kFloat64).Item<double>();
    EXPECT_TRUE(l.ok()) << l.status();
    run.losses.push_back(l.ok() ? *l : NAN);
  }
  for (const Tensor& p : params) {
    EXPECT_EQ(p.device(), d);
    run.params.push_back(Doubles(p));
  }
  return run;
}

TEST_F(CudaOptim, ATinyModelTrainsOnTheGpuAsOnTheCpu) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const double tol = dt == DType::kFloat32 ? 1e-5 : 1e-12;
    for (bool adam : {true, false}) {
      SCOPED_TRACE(std::string(ToString(dt)) + (adam ? " Adam" : " Sgd"));
      const Trained cpu = Train(Device::Cpu(), dt, adam, 4);
      const Trained gpu = Train(kGpu, dt, adam, 4);
      ASSERT_EQ(gpu.losses.size(), cpu.losses.size());
      for (size_t s = 0; s < cpu.losses.size(); ++s) {
        EXPECT_NEAR(gpu.losses[s], cpu.losses[s], tol * std::max(1.0, std::fabs(cpu.losses[s])))
            << "loss at step " << s;
      }
      EXPECT_LT(cpu.losses.back(), cpu.losses.front()) << "training lowers the loss";
      ASSERT_EQ(gpu.params.size(), cpu.params.size());
      for (size_t i = 0; i < cpu.params.size(); ++i) {
        ASSERT_EQ(gpu.params[i].size(), cpu.params[i].size());
        for (size_t k = 0; k < cpu.params[i].size(); ++k) {
          EXPECT_NEAR(gpu.params[i][k], cpu.params[i][k], tol) << "param " << i << " at " << k;
        }
      }
      // Rows 2, 5, 6 and 8 of the table are never looked up: their gradient
      // is exactly zero (IndexAdd into zeros), so Adam leaves them as they
      // were and Sgd only decays them, the same on both devices.
      for (int row : {2, 5, 6, 8}) {
        for (int k = 0; k < 4; ++k) {
          EXPECT_EQ(gpu.params[0][row * 4 + k], cpu.params[0][row * 4 + k]) << "row " << row;
        }
      }
    }
  }
  ASSERT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
