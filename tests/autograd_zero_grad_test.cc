// ZeroGrad then Backward: the gradient a step leaves in grad() is the fresh
// gradient bit for bit; a deferred zero fill is visible wherever grad() can
// be read (a held handle, a view, grad() itself, a captured graph), and two
// Backward calls after one ZeroGrad accumulate.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

std::vector<double> Values(const Tensor& t) {
  absl::StatusOr<std::vector<double>> v = t.ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>();
}

// Bit patterns, so +0 and -0 differ.
std::vector<uint64_t> Bits(const Tensor& t) {
  const std::vector<double> v = Values(t);
  std::vector<uint64_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
  return b;
}

// x holds -0: d sum(w * x) / dw = x, a gradient with a negative zero that
// 0 + g would turn into +0.
const std::vector<double> kX = {4, -0.0, -2.5};

Tensor Loss(const Tensor& w) { return ops::Sum(w * FromVector<double>(kX, Shape{3})); }

TEST(AutogradZeroGrad, GradAfterZeroGradAndBackwardIsTheFreshGradient) {
  Tensor fresh = FromVector<double>({1, 2, 3}, Shape{3}).RequiresGrad();
  ASSERT_TRUE(autograd::Backward(Loss(fresh)).ok());
  Tensor w = FromVector<double>({1, 2, 3}, Shape{3}).RequiresGrad();
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * w)).ok());  // some other gradient first
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
    ASSERT_TRUE(autograd::Backward(Loss(w)).ok());
    EXPECT_EQ(Bits(w.grad()), Bits(fresh.grad())) << "step " << step;
  }
}

TEST(AutogradZeroGrad, ZeroGradQueuesNothingForAGradNoOneHolds) {
  Tensor w = FromVector<double>({1, 2, 3}, Shape{3}).RequiresGrad();
  ASSERT_TRUE(autograd::Backward(Loss(w)).ok());
  ASSERT_TRUE(Sync().ok());
  const uint64_t before = VirtualMachine::Get().GetStats().received;
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
  EXPECT_EQ(VirtualMachine::Get().GetStats().received, before);
  // grad() reads zeros all the same (it queues the fill first).
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{0, 0, 0}));
  ASSERT_TRUE(autograd::Backward(Loss(w)).ok());
  EXPECT_EQ(Values(w.grad()), kX);
}

TEST(AutogradZeroGrad, TwoBackwardsAfterZeroGradAccumulate) {
  Tensor w = FromVector<double>({1, 2, 3}, Shape{3}).RequiresGrad();
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * w)).ok());
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
  ASSERT_TRUE(autograd::Backward(Loss(w)).ok());
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * 3.0)).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{7, 3, 0.5}));
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());  // twice: still zeros, once
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{0, 0, 0}));
}

TEST(AutogradZeroGrad, AHeldGradOrViewOfItReadsZerosAndTheNextGradient) {
  Tensor w = FromVector<double>({1, 2, 3, 4}, Shape{2, 2}).RequiresGrad();
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * w)).ok());
  Tensor held = w.grad();
  Tensor view = w.grad().T();
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
  EXPECT_EQ(Values(held), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(Values(view), (std::vector<double>{0, 0, 0, 0}));
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * 3.0)).ok());
  EXPECT_EQ(Values(held), (std::vector<double>{3, 3, 3, 3}));  // the same buffer as grad()
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{3, 3, 3, 3}));
  held = Tensor();
  Tensor only_view = w.grad().Reshape({4});
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
  EXPECT_EQ(Values(only_view), (std::vector<double>{0, 0, 0, 0}));
}

TEST(AutogradZeroGrad, ACapturedStepKeepsWritingTheGradItCaptured) {
  Tensor w = FromVector<double>({1, 2, 3}, Shape{3}).RequiresGrad();
  ASSERT_TRUE(autograd::Backward(Loss(w)).ok());  // grad() exists before capturing
  const TensorMeta meta{Shape{3}, DType::kFloat64, Device::Cpu()};
  absl::StatusOr<Graph> g =
      Graph::Capture({meta}, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
        EXPECT_TRUE(autograd::ZeroGrad({w}).ok());
        Tensor loss = ops::Sum(w * in[0]);
        EXPECT_TRUE(autograd::Backward(loss).ok());
        return {loss.Detach()};
      });
  ASSERT_TRUE(g.ok()) << g.status();
  // Eagerly: ZeroGrad and a Backward of another loss, then the graph.
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * w)).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{2, 4, 6}));
  ASSERT_TRUE(g->Run({FromVector<double>({7, 8, 9}, Shape{3})}).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{7, 8, 9}));
}

TEST(AutogradZeroGrad, ADeferredZeroBeforeACaptureIsFilledBeforeItsPlan) {
  Tensor w = FromVector<double>({1, 2, 3}, Shape{3}).RequiresGrad();
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * w)).ok());
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());  // deferred: no one holds grad()
  const TensorMeta meta{Shape{3}, DType::kFloat64, Device::Cpu()};
  absl::StatusOr<Graph> g =
      Graph::Capture({meta}, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
        Tensor loss = ops::Sum(w * in[0]);
        EXPECT_TRUE(autograd::Backward(loss).ok());  // accumulates, as eagerly
        return {loss.Detach()};
      });
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(g->Run({FromVector<double>({1, 1, 1}, Shape{3})}).ok());
  ASSERT_TRUE(g->Run({FromVector<double>({7, 8, 9}, Shape{3})}).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{8, 9, 10}));
}

}  // namespace
}  // namespace eagervm
