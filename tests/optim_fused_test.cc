// The optimizers' fused updates (one instruction per parameter) against their
// unfused in-place ops: bitwise equal parameters over several steps, for Sgd
// (momentum, weight decay) and Adam, float32 and float64, contiguous and
// view parameters; the fallback where no fused kernel exists; graph capture;
// the ops' checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"
#include "ops/op_registry.h"
#include "ops/optim_ops.h"

namespace eagervm {
namespace {

// The bit patterns of a tensor's elements (float32 or float64).
std::vector<uint64_t> Bits(const Tensor& t) {
  std::vector<uint64_t> out;
  if (t.dtype() == DType::kFloat32) {
    absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
    EXPECT_TRUE(v.ok()) << v.status();
    if (!v.ok()) return out;
    for (float x : *v) {
      uint32_t b;
      std::memcpy(&b, &x, sizeof b);
      out.push_back(b);
    }
  } else {
    absl::StatusOr<std::vector<double>> v = t.ToVector<double>();
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

std::vector<double> Random(std::mt19937_64& rng, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = std::uniform_real_distribution<double>(-1, 1)(rng);
  return v;
}

// Parameters: a [5, 7] matrix and a [6] vector, of `dtype`.
std::vector<Tensor> MakeParams(DType dtype) {
  std::mt19937_64 rng(21);
  return {ops::Cast(FromVector<double>(Random(rng, 35), Shape{5, 7}), dtype).RequiresGrad(),
          ops::Cast(FromVector<double>(Random(rng, 6), Shape{6}), dtype).RequiresGrad()};
}

// grad(p) = 3 p^2 r + r for fixed random r: every element its own gradient,
// changing from step to step.
absl::Status Backward(const std::vector<Tensor>& params) {
  EAGERVM_RETURN_IF_ERROR(autograd::ZeroGrad(params));
  std::mt19937_64 rng(5);
  Tensor loss;
  for (const Tensor& p : params) {
    Tensor r = ops::Cast(FromVector<double>(Random(rng, p.numel()), p.shape()), p.dtype());
    Tensor term = ops::Sum((p * p * p + p) * r);
    loss = loss.defined() ? loss + term : term;
  }
  return autograd::Backward(loss);
}

using MakeOpt = std::function<std::function<absl::Status()>(std::vector<Tensor>, bool fused)>;

// Trains two copies of the parameters, fused and unfused, `steps` steps;
// their parameters are bitwise equal after each.
void ExpectFusedEqualsUnfused(const std::string& what, DType dtype, const MakeOpt& make,
                              int steps = 4) {
  SCOPED_TRACE(what + " " + std::string(ToString(dtype)));
  std::vector<Tensor> a = MakeParams(dtype), b = MakeParams(dtype);
  std::function<absl::Status()> step_a = make(a, true), step_b = make(b, false);
  for (int s = 0; s < steps; ++s) {
    ASSERT_TRUE(Backward(a).ok());
    ASSERT_TRUE(Backward(b).ok());
    ASSERT_TRUE(step_a().ok());
    ASSERT_TRUE(step_b().ok());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(Bits(a[i]), Bits(b[i])) << "step " << s << " param " << i;
      EXPECT_NE(Bits(a[i]), Bits(MakeParams(dtype)[i])) << "the step changed nothing";
    }
  }
}

MakeOpt SgdMaker(double lr, double momentum, double weight_decay) {
  return [=](std::vector<Tensor> params, bool fused) {
    auto sgd = std::make_shared<optim::Sgd>(std::move(params), lr, momentum, weight_decay);
    sgd->set_fused(fused);
    return [sgd] { return sgd->Step(); };
  };
}
MakeOpt AdamMaker(double lr, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8) {
  return [=](std::vector<Tensor> params, bool fused) {
    auto adam = std::make_shared<optim::Adam>(std::move(params), lr, beta1, beta2, eps);
    adam->set_fused(fused);
    return [adam] { return adam->Step(); };
  };
}

TEST(OptimFused, SgdIsBitwiseTheUnfusedOps) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    ExpectFusedEqualsUnfused("plain", dtype, SgdMaker(0.1, 0, 0));
    ExpectFusedEqualsUnfused("momentum", dtype, SgdMaker(0.1, 0.9, 0));
    ExpectFusedEqualsUnfused("weight decay", dtype, SgdMaker(0.07, 0, 0.01));
    ExpectFusedEqualsUnfused("momentum and weight decay", dtype, SgdMaker(0.3, 0.85, 0.013));
  }
}

TEST(OptimFused, AdamIsBitwiseTheUnfusedOps) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    ExpectFusedEqualsUnfused("default betas", dtype, AdamMaker(0.01), 6);
    ExpectFusedEqualsUnfused("other betas", dtype, AdamMaker(0.003, 0.8, 0.95, 1e-3), 6);
  }
}

// One instruction per parameter (fused) instead of the chain of ops. The VM
// counts every instruction it receives, a temporary's release among them.
TEST(OptimFused, AFusedStepIsOneInstructionPerParameter) {
  uint64_t sgd_count[2], adam_count[2];
  for (bool fused : {true, false}) {
    std::vector<Tensor> params = MakeParams(DType::kFloat32);
    optim::Sgd sgd(params, 0.1, 0.9, 0.01);
    optim::Adam adam(params, 0.01);
    sgd.set_fused(fused);
    adam.set_fused(fused);
    ASSERT_TRUE(Backward(params).ok());
    for (const Tensor& p : params) ASSERT_TRUE(p.grad().Wait().ok());
    const uint64_t before = VirtualMachine::Get().GetStats().received;
    ASSERT_TRUE(sgd.Step().ok());
    const uint64_t after_sgd = VirtualMachine::Get().GetStats().received;
    ASSERT_TRUE(adam.Step().ok());
    sgd_count[fused] = after_sgd - before;
    adam_count[fused] = VirtualMachine::Get().GetStats().received - after_sgd;
  }
  EXPECT_EQ(sgd_count[true], 2u);       // one per parameter
  EXPECT_EQ(sgd_count[false], 2 * 7u);  // 5 ops and 2 temporaries per parameter
  // Adam's per-step bias corrections stay unfused (the same in both); per
  // parameter: 1 instruction against 11 ops and 6 temporaries.
  EXPECT_EQ(adam_count[false] - adam_count[true], 2 * (17u - 1u));
}

// A parameter that is a strided view (a column of a matrix) is updated
// through the view, fused as unfused.
TEST(OptimFused, AViewParameterIsUpdatedBitwiseAsUnfused) {
  for (bool adam : {false, true}) {
    std::vector<Tensor> got;
    for (bool fused : {true, false}) {
      std::mt19937_64 rng(3);
      Tensor base = FromVector<double>(Random(rng, 24), Shape{4, 6});
      Tensor col = base.Slice(1, 2, 3).Detach().RequiresGrad();  // [4, 1], strided
      std::vector<Tensor> params{col};
      std::function<absl::Status()> step =
          adam ? AdamMaker(0.01)(params, fused) : SgdMaker(0.1, 0.9, 0.01)(params, fused);
      for (int s = 0; s < 3; ++s) {
        ASSERT_TRUE(Backward(params).ok());
        absl::Status st = step();
        ASSERT_TRUE(st.ok()) << st;
      }
      got.push_back(base);
    }
    EXPECT_EQ(Bits(got[0]), Bits(got[1])) << (adam ? "Adam" : "Sgd");
  }
}

// Step takes the fused path only where the backend has the kernel: CPU
// float32 and float64 (the dtypes of leaves with gradients), and CUDA's
// same dtypes in a build with the CUDA backend (tests/cuda_optim_test.cc);
// a build without it has no CUDA kernels at all, and a CUDA parameter
// would run the unfused ops (set_fused(false)'s path above). 16-bit floats
// have no fused kernel anywhere.
TEST(OptimFused, TheFusedPathIsTakenOnlyWhereItsKernelExists) {
  const bool cuda_build = internal::OpRegistry::Get().MustFind("Add").FindKernel(
                              DeviceType::kCUDA, DType::kFloat32) != nullptr;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    EXPECT_TRUE(internal::HasFusedSgdKernel(Device::Cpu(), dtype, false));
    EXPECT_TRUE(internal::HasFusedSgdKernel(Device::Cpu(), dtype, true));
    EXPECT_TRUE(internal::HasFusedAdamKernel(Device::Cpu(), dtype));
    EXPECT_EQ(internal::HasFusedSgdKernel(Device::Cuda(), dtype, false), cuda_build);
    EXPECT_EQ(internal::HasFusedSgdKernel(Device::Cuda(), dtype, true), cuda_build);
    EXPECT_EQ(internal::HasFusedAdamKernel(Device::Cuda(), dtype), cuda_build);
  }
  for (Device d : {Device::Cpu(), Device::Cuda()}) {
    EXPECT_FALSE(internal::HasFusedAdamKernel(d, DType::kFloat16));
    EXPECT_FALSE(internal::HasFusedSgdKernel(d, DType::kBFloat16, true));
  }
}

// A captured training step with a fused Adam replays bitwise as eager.
TEST(OptimFused, ACapturedAdamStepReplaysBitwiseAsEager) {
  std::vector<Tensor> eager = MakeParams(DType::kFloat32), graph = MakeParams(DType::kFloat32);
  optim::Adam adam_eager(eager, 0.01), adam_graph(graph, 0.01);
  auto train = [](std::vector<Tensor>& params, optim::Adam& adam) {
    EXPECT_TRUE(Backward(params).ok());
    EXPECT_TRUE(adam.Step().ok());
  };
  train(eager, adam_eager);  // every grad() exists before capturing
  train(graph, adam_graph);
  const Tensor x = Zeros({1}, DType::kFloat32);
  absl::StatusOr<Graph> g =
      Graph::Capture({x.meta()}, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
        train(graph, adam_graph);
        return {in[0] + 1.0};
      });
  ASSERT_TRUE(g.ok()) << g.status();
  for (int step = 0; step < 4; ++step) {
    train(eager, adam_eager);
    ASSERT_TRUE(g->Run({x}).ok());
    for (size_t i = 0; i < eager.size(); ++i) {
      EXPECT_EQ(Bits(graph[i]), Bits(eager[i])) << "step " << step << " param " << i;
    }
  }
}

TEST(OptimFused, TheFusedOpsRefuseAGradThatDoesNotMatchTheParam) {
  Tensor p = Zeros({2, 3}, DType::kFloat32);
  Tensor g64 = Zeros({2, 3}, DType::kFloat64), g_shape = Zeros({3, 2}, DType::kFloat32);
  for (const Tensor& g : {g64, g_shape}) {
    absl::Status s = internal::SgdStep(p, g, nullptr, nullptr, 0.1, 0);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("SgdStep: grad"), std::string::npos) << s;
    EXPECT_NE(s.message().find("param float32 [2,3]"), std::string::npos) << s;
    Tensor c = Full(Shape{}, 1.0, DType::kFloat32);
    Tensor betas = internal::FusedHyperparameters(Device::Cpu(), DType::kFloat32, {1, 2, 3, 4});
    s = internal::AdamStep(p, g, p, p, c, c, betas, 1e-8);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("AdamStep: grad"), std::string::npos) << s;
  }
  Tensor i32 = Zeros({2}, DType::kInt32);
  EXPECT_EQ(internal::SgdStep(i32, i32, nullptr, nullptr, 0.1, 0).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eagervm
