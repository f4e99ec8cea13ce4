// Autograd: every backward formula against central finite differences in
// float64, the engine's rules (accumulation, freed graphs, version
// counters, in-place refusals, NoGradGuard, Grad), custom backward, and the
// optimizers against their formulas computed on the host.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

std::vector<double> Random(std::mt19937_64& rng, int64_t n, double lo, double hi) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = std::uniform_real_distribution<double>(lo, hi)(rng);
  return v;
}
// Values in ±[0.2, 1.2]: away from Relu's, Abs's and Max's kinks.
std::vector<double> AwayFromZero(std::mt19937_64& rng, int64_t n) {
  std::vector<double> v = Random(rng, n, 0.2, 1.2);
  for (double& x : v)
    if (std::uniform_int_distribution<int>(0, 1)(rng) == 1) x = -x;
  return v;
}

std::vector<double> Values(const Tensor& t) {
  absl::StatusOr<std::vector<double>> v = t.ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>();
}

struct Input {
  Shape shape;
  std::vector<double> data;
  bool differentiable = true;
};

// The loss sum(f(xs) * r), r fixed random weights, so every output element
// matters with its own weight.
double LossValue(const Fn& f, const std::vector<Tensor>& xs, const Tensor& r) {
  Tensor y = f(xs);
  absl::StatusOr<double> v = ops::Sum(y * r).Item<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : NAN;
}

// Analytic gradients (autograd::Grad) against central differences.
void GradCheck(const std::string& what, const Fn& f, const std::vector<Input>& inputs,
               double tol = 1e-6) {
  SCOPED_TRACE(what);
  std::mt19937_64 rng(7);
  std::vector<Tensor> xs;
  for (const Input& in : inputs) {
    Tensor x = FromVector<double>(in.data, in.shape);
    xs.push_back(in.differentiable ? x.RequiresGrad() : x);
  }
  Tensor y = f(xs);
  ASSERT_TRUE(y.ok()) << y.status();
  Tensor r = FromVector<double>(Random(rng, y.numel(), -1, 1), y.shape());
  Tensor loss = ops::Sum(y * r);
  std::vector<Tensor> wrt;
  for (size_t i = 0; i < xs.size(); ++i)
    if (inputs[i].differentiable) wrt.push_back(xs[i]);
  absl::StatusOr<std::vector<Tensor>> grads = autograd::Grad(loss, wrt);
  ASSERT_TRUE(grads.ok()) << grads.status();
  size_t k = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!inputs[i].differentiable) continue;
    const std::vector<double> analytic = Values((*grads)[k++]);
    ASSERT_EQ(analytic.size(), inputs[i].data.size());
    autograd::NoGradGuard no_grad;
    for (size_t e = 0; e < inputs[i].data.size(); ++e) {
      const double h = 1e-6;
      auto at = [&](double delta) {
        std::vector<Tensor> moved = xs;
        std::vector<double> d = inputs[i].data;
        d[e] += delta;
        moved[i] = FromVector<double>(d, inputs[i].shape);
        return LossValue(f, moved, r);
      };
      const double numeric = (at(h) - at(-h)) / (2 * h);
      EXPECT_NEAR(analytic[e], numeric, tol * (1 + std::fabs(numeric)))
          << "input " << i << " element " << e;
    }
  }
}

Input In(std::mt19937_64& rng, Shape shape) {
  return Input{shape, AwayFromZero(rng, shape.numel())};
}
Input Positive(std::mt19937_64& rng, Shape shape) {
  return Input{shape, Random(rng, shape.numel(), 0.5, 2.0)};
}

TEST(AutogradGradCheck, BinaryOpsWithBroadcasting) {
  std::mt19937_64 rng(1);
  GradCheck("Add", [](auto& x) { return x[0] + x[1]; }, {In(rng, {3, 1}), In(rng, {4})});
  GradCheck("Sub", [](auto& x) { return x[0] - x[1]; }, {In(rng, {2, 3}), In(rng, {1, 3})});
  GradCheck("Mul", [](auto& x) { return x[0] * x[1]; }, {In(rng, {2, 3, 2}), In(rng, {3, 1})});
  GradCheck("Div", [](auto& x) { return x[0] / x[1]; }, {In(rng, {4}), Positive(rng, {2, 4})});
  GradCheck("Maximum", [](auto& x) { return ops::Maximum(x[0], x[1]); },
            {In(rng, {3, 4}), In(rng, {4})});
  GradCheck("Minimum", [](auto& x) { return ops::Minimum(x[0], x[1]); },
            {In(rng, {3, 4}), In(rng, {3, 1})});
  Input cond{{3, 1}, {1, 0, 1}, false};
  GradCheck(
      "Where",
      [](auto& x) { return ops::Where(ops::Gt(x[0], Zeros({}, DType::kFloat64)), x[1], x[2]); },
      {cond, In(rng, {3, 2}), In(rng, {2})});
}

TEST(AutogradGradCheck, ScalarAndUnaryOps) {
  std::mt19937_64 rng(2);
  const Shape s{2, 3};
  GradCheck("AddScalar", [](auto& x) { return x[0] + 1.5; }, {In(rng, s)});
  GradCheck("SubScalar", [](auto& x) { return x[0] - 1.5; }, {In(rng, s)});
  GradCheck("MulScalar", [](auto& x) { return x[0] * 2.5; }, {In(rng, s)});
  GradCheck("DivScalar", [](auto& x) { return x[0] / 4.0; }, {In(rng, s)});
  GradCheck("ScalarMinus", [](auto& x) { return 2.0 - x[0]; }, {In(rng, s)});
  GradCheck("ScalarOver", [](auto& x) { return 2.0 / x[0]; }, {Positive(rng, s)});
  GradCheck("Pow", [](auto& x) { return ops::Pow(x[0], 3.0); }, {In(rng, s)});
  GradCheck("PowFraction", [](auto& x) { return ops::Pow(x[0], 0.5); }, {Positive(rng, s)});
  GradCheck("Neg", [](auto& x) { return -x[0]; }, {In(rng, s)});
  GradCheck("Relu", [](auto& x) { return ops::Relu(x[0]); }, {In(rng, s)});
  GradCheck("Exp", [](auto& x) { return ops::Exp(x[0]); }, {In(rng, s)});
  GradCheck("Log", [](auto& x) { return ops::Log(x[0]); }, {Positive(rng, s)});
  GradCheck("Sigmoid", [](auto& x) { return ops::Sigmoid(x[0]); }, {In(rng, s)});
  GradCheck("Tanh", [](auto& x) { return ops::Tanh(x[0]); }, {In(rng, s)});
  GradCheck("Sqrt", [](auto& x) { return ops::Sqrt(x[0]); }, {Positive(rng, s)});
  GradCheck("Abs", [](auto& x) { return ops::Abs(x[0]); }, {In(rng, s)});
  GradCheck("Gelu", [](auto& x) { return ops::Gelu(x[0]); }, {In(rng, s)});
  GradCheck("GeluAtZero", [](auto& x) { return ops::Gelu(x[0]); }, {Input{{3}, {0.0, 1e-3, -2}}});
  GradCheck("GeluTanh", [](auto& x) { return ops::Gelu(x[0], true); }, {In(rng, s)});
}

TEST(AutogradGradCheck, MatMulFamily) {
  std::mt19937_64 rng(3);
  GradCheck("MatMul", [](auto& x) { return ops::MatMul(x[0], x[1]); },
            {In(rng, {2, 3}), In(rng, {3, 4})});
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const Shape a = ta ? Shape{3, 2} : Shape{2, 3};
      const Shape b = tb ? Shape{4, 3} : Shape{3, 4};
      GradCheck("MatMul ta=" + std::to_string(ta) + " tb=" + std::to_string(tb),
                [ta, tb](auto& x) { return ops::MatMul(x[0], x[1], ta, tb); },
                {In(rng, a), In(rng, b)});
      const Shape ba = ta ? Shape{2, 3, 2} : Shape{2, 2, 3};
      const Shape bb = tb ? Shape{2, 4, 3} : Shape{2, 3, 4};
      GradCheck("BatchMatMul ta=" + std::to_string(ta) + " tb=" + std::to_string(tb),
                [ta, tb](auto& x) { return ops::BatchMatMul(x[0], x[1], ta, tb); },
                {In(rng, ba), In(rng, bb)});
    }
  }
  GradCheck("Transpose", [](auto& x) { return ops::Transpose(x[0]); }, {In(rng, {2, 3})});
}

TEST(AutogradGradCheck, Reductions) {
  std::mt19937_64 rng(4);
  const Shape s{3, 4};
  GradCheck("SumAll", [](auto& x) { return ops::Sum(x[0]); }, {In(rng, s)});
  GradCheck("SumAxis", [](auto& x) { return ops::Sum(x[0], 1); }, {In(rng, s)});
  GradCheck("SumKeep", [](auto& x) { return ops::Sum(x[0], 0, true); }, {In(rng, s)});
  GradCheck("MeanAll", [](auto& x) { return ops::Mean(x[0]); }, {In(rng, s)});
  GradCheck("MeanAxis", [](auto& x) { return ops::Mean(x[0], -1); }, {In(rng, s)});
  GradCheck("MaxAll", [](auto& x) { return ops::Max(x[0]); }, {In(rng, s)});
  GradCheck("MaxAxis", [](auto& x) { return ops::Max(x[0], 0, true); }, {In(rng, s)});
  GradCheck("MinAxis", [](auto& x) { return ops::Min(x[0], 1); }, {In(rng, s)});
  GradCheck("MinAll", [](auto& x) { return ops::Min(x[0]); }, {In(rng, s)});
}

TEST(AutogradGradCheck, SoftmaxFamilyAndLayerNorm) {
  std::mt19937_64 rng(5);
  GradCheck("Softmax", [](auto& x) { return ops::Softmax(x[0], 1); }, {In(rng, {3, 4})});
  GradCheck("Softmax0", [](auto& x) { return ops::Softmax(x[0], 0); }, {In(rng, {3, 4})});
  GradCheck("LogSoftmax", [](auto& x) { return ops::LogSoftmax(x[0], -1); }, {In(rng, {2, 5})});
  Input labels{{3}, {}, false};
  GradCheck("CrossEntropy",
            [](auto& x) {
              return ops::CrossEntropy(x[0], FromVector<int64_t>({2, 0, 3}, Shape{3}));
            },
            {In(rng, {3, 4})});
  GradCheck(
      "LayerNorm", [](auto& x) { return ops::LayerNorm(x[0], x[1], x[2], 1e-5); },
      {In(rng, {3, 5}), In(rng, {5}), In(rng, {5})}, 1e-5);
}

TEST(AutogradGradCheck, IndexingAndViews) {
  std::mt19937_64 rng(6);
  GradCheck("IndexSelect",
            [](auto& x) {
              return ops::IndexSelect(x[0], 0, FromVector<int64_t>({2, 0, 2}, Shape{3}));
            },
            {In(rng, {4, 3})});
  GradCheck("IndexSelect axis 1",
            [](auto& x) {
              return ops::IndexSelect(x[0], 1, FromVector<int64_t>({2, 0, 2, 1}, Shape{2, 2}));
            },
            {In(rng, {2, 3, 2})});
  GradCheck("IndexAdd",
            [](auto& x) {
              return ops::IndexAdd(x[0], 1, FromVector<int64_t>({2, 0, 2}, Shape{3}), x[1]);
            },
            {In(rng, {2, 3}), In(rng, {2, 3})});
  GradCheck("Concat0",
            [](auto& x) {
              return ops::Concat({x[0], x[1]}, 0);
            },
            {In(rng, {2, 3}), In(rng, {1, 3})});
  GradCheck("Concat1",
            [](auto& x) {
              return ops::Concat({x[0], x[1]}, 1);
            },
            {In(rng, {2, 3}), In(rng, {2, 2})});
  GradCheck("Split",
            [](auto& x) {
              std::vector<Tensor> parts = ops::Split(x[0], 2, 1);
              return parts[0] * parts[1] * 2.0 + parts[0];
            },
            {In(rng, {2, 4})});
  GradCheck("Reshape",
            [](auto& x) {
              return x[0].Reshape({3, 2}) * x[1];
            },
            {In(rng, {2, 3}), In(rng, {2})});
  GradCheck("Slice", [](auto& x) { return x[0].Slice(1, 3) * 3.0; }, {In(rng, {4, 2})});
  GradCheck("SliceOfSlice", [](auto& x) { return x[0].Slice(1, 4).Slice(1, 2) + x[0].Slice(0, 1); },
            {In(rng, {4, 2})});
  GradCheck("Copy", [](auto& x) { return x[0].To(Device::Cpu()) * x[0]; }, {In(rng, {3})});
  // Strided views: gradients flow back through the view's geometry.
  GradCheck("SliceAxis1", [](auto& x) { return x[0].Slice(1, 1, 3) * 2.0; }, {In(rng, {3, 4})});
  GradCheck("T", [](auto& x) { return ops::MatMul(x[0].T(), x[1]); },
            {In(rng, {3, 2}), In(rng, {3, 4})});
  GradCheck("Permute",
            [](auto& x) {
              return x[0].Permute({2, 0, 1}) * x[1];
            },
            {In(rng, {2, 3, 4}), In(rng, {4, 2, 3})});
  GradCheck("Expand",
            [](auto& x) {
              return x[0].Expand({4, 3}) * x[1];
            },
            {In(rng, {1, 3}), In(rng, {4, 3})});
  GradCheck("ExpandNewDims",
            [](auto& x) {
              return ops::Exp(x[0].Expand({2, 3, 3}));
            },
            {In(rng, {3})});
  // Views of an Expand view (a base whose elements share storage).
  GradCheck("SliceOfExpand",
            [](auto& x) {
              return x[0].Expand({4, 3}).Slice(1, 3) * x[1];
            },
            {In(rng, {1, 3}), In(rng, {2, 3})});
  GradCheck("SliceAxis1OfExpand",
            [](auto& x) {
              return ops::Exp(x[0].Expand({2, 4, 3}).Slice(1, 1, 4).Slice(2, 0, 2));
            },
            {In(rng, {4, 1})});
  GradCheck("PermuteOfExpand",
            [](auto& x) {
              return x[0].Expand({3, 4}).T() * x[1];
            },
            {In(rng, {3, 1}), In(rng, {4, 3})});
  GradCheck("Contiguous", [](auto& x) { return x[0].T().Contiguous().Reshape({6}); },
            {In(rng, {2, 3})});
  GradCheck("ViewOfView",
            [](auto& x) {
              return x[0].Permute({1, 0}).Slice(1, 0, 2) + 1.0;
            },
            {In(rng, {3, 4})});
}

TEST(AutogradGradCheck, AnMlpStep) {
  std::mt19937_64 rng(8);
  Input data{{5, 4}, AwayFromZero(rng, 20), false};
  GradCheck("mlp",
            [](auto& x) {
              Tensor h = ops::Relu(ops::MatMul(x[0], x[1]) + x[2]);
              Tensor logits = ops::MatMul(h, x[3], false, true);
              return ops::CrossEntropy(logits, FromVector<int64_t>({0, 1, 2, 1, 0}, Shape{5}));
            },
            {data, In(rng, {4, 6}), In(rng, {6}), In(rng, {3, 6})});
}

// ---- The engine's rules ----

Tensor Param(std::vector<double> v, Shape s) { return FromVector<double>(v, s).RequiresGrad(); }

TEST(Autograd, BackwardAccumulatesIntoLeaves) {
  Tensor w = Param({1, 2, 3}, {3});
  Tensor x = FromVector<double>({4, 5, 6}, Shape{3});
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * x)).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{4, 5, 6}));
  ASSERT_TRUE(autograd::Backward(ops::Sum(w * w)).ok());  // + 2w
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{6, 9, 12}));
  ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{0, 0, 0}));
  EXPECT_FALSE(x.requires_grad());
  EXPECT_FALSE(x.grad().defined());
}

TEST(Autograd, AGradientSharedByTwoLeavesIsNotAliased) {
  // Add passes its gradient through to both inputs: each leaf must get its
  // own storage, or accumulating into one would change the other.
  Tensor a = Param({1, 2}, {2});
  Tensor b = Param({3, 4}, {2});
  ASSERT_TRUE(autograd::Backward(ops::Sum(a + b)).ok());
  ASSERT_TRUE(autograd::Backward(ops::Sum(a * 3.0)).ok());
  EXPECT_EQ(Values(a.grad()), (std::vector<double>{4, 4}));
  EXPECT_EQ(Values(b.grad()), (std::vector<double>{1, 1}));
}

TEST(Autograd, TheLossCanBeALeaf) {
  Tensor w = Param({2}, {});
  ASSERT_TRUE(autograd::Backward(w).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{1}));
}

TEST(Autograd, ErrorsAreClearAndQueueNothing) {
  Tensor w = Param({1, 2}, {2});
  absl::Status s = autograd::Backward(w * 2.0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("one element"), std::string::npos) << s;
  s = autograd::Backward(ops::Sum(FromVector<double>({1, 2}, Shape{2})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("does not require grad"), std::string::npos) << s;
  EXPECT_FALSE(w.grad().defined());

  Tensor i = FromVector<int64_t>({1}, Shape{1}).RequiresGrad();
  EXPECT_FALSE(i.ok());
  EXPECT_NE(i.status().message().find("only float32 and float64"), std::string::npos) << i.status();
  Tensor y = (w * 2.0).RequiresGrad();
  EXPECT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("leaf"), std::string::npos) << y.status();
}

TEST(Autograd, ASecondBackwardThroughAFreedGraphFails) {
  Tensor w = Param({1, 2}, {2});
  Tensor loss = ops::Sum(ops::Exp(w));
  ASSERT_TRUE(autograd::Backward(loss).ok());
  absl::Status s = autograd::Backward(loss);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("retain_graph"), std::string::npos) << s;

  Tensor loss2 = ops::Sum(w * 3.0);
  ASSERT_TRUE(autograd::Backward(loss2, /*retain_graph=*/true).ok());
  ASSERT_TRUE(autograd::Backward(loss2).ok());
  const std::vector<double> g = Values(w.grad());
  EXPECT_NEAR(g[0], std::exp(1.0) + 6, 1e-12);
}

TEST(Autograd, InPlaceWritesThatWouldLoseAGradientAreRefused) {
  Tensor w = Param({1, 2}, {2});
  absl::Status s = ops::AddInplace(w, FromVector<double>({1, 1}, Shape{2}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("AddInplace"), std::string::npos) << s;
  EXPECT_NE(s.message().find("NoGradGuard"), std::string::npos) << s;
  Tensor buf = Zeros({2}, DType::kFloat64);
  s = ops::AddInplace(buf, w);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  s = ops::CopyInto(buf, w * 2.0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(Values(w), (std::vector<double>{1, 2}));
  {
    autograd::NoGradGuard no_grad;
    ASSERT_TRUE(ops::AddInplace(w, FromVector<double>({1, 1}, Shape{2})).ok());
    ASSERT_TRUE(ops::AddInplace(buf, w).ok());
  }
  EXPECT_EQ(Values(w), (std::vector<double>{2, 3}));
}

TEST(Autograd, ASavedTensorWrittenInPlaceFailsBackward) {
  Tensor w = Param({1, 2}, {2});
  Tensor x = FromVector<double>({3, 4}, Shape{2});
  Tensor loss = ops::Sum(w * x);  // Mul saves x
  ASSERT_TRUE(ops::MulScalarInplace(x, 2.0).ok());
  absl::Status s = autograd::Backward(loss);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Mul"), std::string::npos) << s;
  EXPECT_FALSE(w.grad().defined());  // nothing queued
  // A write through a view of the saved tensor counts too.
  Tensor x2 = FromVector<double>({3, 4}, Shape{2});
  Tensor loss2 = ops::Sum(w * x2);
  ASSERT_TRUE(ops::FillInplace(x2.Slice(0, 1), 0.0).ok());
  EXPECT_EQ(autograd::Backward(loss2).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(Autograd, NoGradGuardRecordsNothing) {
  Tensor w = Param({1, 2}, {2});
  Tensor y;
  {
    autograd::NoGradGuard no_grad;
    EXPECT_FALSE(autograd::IsGradEnabled());
    y = w * 2.0;
  }
  EXPECT_TRUE(autograd::IsGradEnabled());
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE((w * 2.0).requires_grad());
  EXPECT_FALSE(w.Detach().requires_grad());
  EXPECT_FALSE((w.Detach() * 2.0).requires_grad());
}

TEST(Autograd, GradIsFunctionalAndReachesIntermediates) {
  Tensor w = Param({1, 2}, {2});
  Tensor h = w * w;  // dh/dw = 2w
  Tensor loss = ops::Sum(h * 3.0);
  absl::StatusOr<std::vector<Tensor>> g = autograd::Grad(loss, {w, h}, true);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Values((*g)[0]), (std::vector<double>{6, 12}));
  EXPECT_EQ(Values((*g)[1]), (std::vector<double>{3, 3}));
  EXPECT_FALSE(w.grad().defined());
  Tensor unused = Param({5}, {1});
  EXPECT_EQ(autograd::Grad(loss, {unused}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Autograd, CustomOpsNeedARegisteredBackward) {
  ASSERT_TRUE(RegisterOp("autograd_test.Square",
                         [](const std::vector<TensorMeta>& in,
                            const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                           return std::vector<TensorMeta>{in[0]};
                         })
                  .ok());
  ASSERT_TRUE(RegisterKernel("autograd_test.Square", DeviceType::kCPU,
                             [](KernelContext& ctx) -> absl::Status {
                               const double* x = ctx.input<double>(0);
                               double* y = ctx.output<double>(0);
                               for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i)
                                 y[i] = x[i] * x[i];
                               return absl::OkStatus();
                             })
                  .ok());
  Tensor w = Param({1, 2}, {2});
  auto square = [](const Tensor& x) { return (*ops::Call("autograd_test.Square", {x}))[0]; };
  absl::Status s = autograd::Backward(ops::Sum(square(w)));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("autograd_test.Square"), std::string::npos) << s;

  EXPECT_EQ(autograd::RegisterBackward("autograd_test.NoSuchOp", nullptr).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(autograd::RegisterBackward("Mul",
                                       [](auto&, auto) -> absl::StatusOr<std::vector<Tensor>> {
                                         return std::vector<Tensor>{};
                                       })
                .code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(autograd::RegisterBackward(
                  "autograd_test.Square",
                  [](const autograd::BackwardContext& c,
                     absl::Span<const Tensor> g) -> absl::StatusOr<std::vector<Tensor>> {
                    EXPECT_EQ(c.op(), "autograd_test.Square");
                    return std::vector<Tensor>{g[0] * c.input(0) * 2.0};
                  })
                  .ok());
  ASSERT_TRUE(autograd::Backward(ops::Sum(square(w))).ok());
  EXPECT_EQ(Values(w.grad()), (std::vector<double>{2, 4}));
}

TEST(Autograd, AWrongShapedCustomGradientIsAnError) {
  ASSERT_TRUE(RegisterOp("autograd_test.Id",
                         [](const std::vector<TensorMeta>& in,
                            const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                           return std::vector<TensorMeta>{in[0]};
                         })
                  .ok());
  ASSERT_TRUE(RegisterKernel("autograd_test.Id", DeviceType::kCPU, [](KernelContext& ctx) {
                std::memcpy(ctx.output<double>(0), ctx.input<double>(0),
                            ctx.input_meta(0).shape.numel() * sizeof(double));
                return absl::OkStatus();
              }).ok());
  ASSERT_TRUE(autograd::RegisterBackward(
                  "autograd_test.Id",
                  [](const autograd::BackwardContext&,
                     absl::Span<const Tensor> g) -> absl::StatusOr<std::vector<Tensor>> {
                    return std::vector<Tensor>{ops::Sum(g[0])};
                  })
                  .ok());
  Tensor w = Param({1, 2}, {2});
  absl::Status s = autograd::Backward(ops::Sum((*ops::Call("autograd_test.Id", {w}))[0]));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("autograd_test.Id"), std::string::npos) << s;
  EXPECT_NE(s.message().find("[2]"), std::string::npos) << s;
}

// ---- Optimizers ----

TEST(Optim, SgdWithMomentumAndWeightDecayMatchesItsFormula) {
  Tensor w = Param({1, -2}, {2});
  optim::Sgd sgd({w}, 0.1, 0.9, 0.01);
  std::vector<double> p{1, -2}, buf{0, 0};
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
    ASSERT_TRUE(autograd::Backward(ops::Sum(w * w)).ok());  // grad 2w
    ASSERT_TRUE(sgd.Step().ok());
    for (int i = 0; i < 2; ++i) {
      const double d = 2 * p[i] + 0.01 * p[i];
      buf[i] = 0.9 * buf[i] + d;
      p[i] -= 0.1 * buf[i];
    }
    const std::vector<double> got = Values(w);
    EXPECT_NEAR(got[0], p[0], 1e-12);
    EXPECT_NEAR(got[1], p[1], 1e-12);
  }
}

TEST(Optim, AdamMatchesItsFormula) {
  Tensor w = Param({1, -2}, {2});
  optim::Adam adam({w}, 0.01);
  std::vector<double> p{1, -2}, m{0, 0}, v{0, 0};
  for (int t = 1; t <= 3; ++t) {
    ASSERT_TRUE(autograd::ZeroGrad({w}).ok());
    ASSERT_TRUE(autograd::Backward(ops::Sum(w * w * w)).ok());  // grad 3w^2
    ASSERT_TRUE(adam.Step().ok());
    for (int i = 0; i < 2; ++i) {
      const double g = 3 * p[i] * p[i];
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      const double mh = m[i] / (1 - std::pow(0.9, t));
      const double vh = v[i] / (1 - std::pow(0.999, t));
      p[i] -= 0.01 * mh / (std::sqrt(vh) + 1e-8);
    }
    const std::vector<double> got = Values(w);
    EXPECT_NEAR(got[0], p[0], 1e-12);
    EXPECT_NEAR(got[1], p[1], 1e-12);
  }
}

TEST(Optim, StepRefusesAParameterThatIsNotALeaf) {
  Tensor w = Param({1}, {1});
  optim::Sgd sgd({w * 2.0}, 0.1);
  EXPECT_EQ(sgd.Step().code(), absl::StatusCode::kInvalidArgument);
}

// Training with autograd reaches the loss that hand-written gradients reach.
TEST(Optim, TrainingALinearModelWithAutogradEqualsHandWrittenGradients) {
  std::mt19937_64 rng(9);
  const std::vector<double> xs = Random(rng, 32 * 3, -1, 1);
  std::vector<double> ys(32);
  for (int i = 0; i < 32; ++i) ys[i] = 2 * xs[i * 3] - xs[i * 3 + 1] + 0.5 * xs[i * 3 + 2] + 1;
  Tensor x = FromVector<double>(xs, Shape{32, 3});
  Tensor y = FromVector<double>(ys, Shape{32, 1});
  Tensor w = Zeros({3, 1}, DType::kFloat64).RequiresGrad();
  Tensor b = Zeros({1}, DType::kFloat64).RequiresGrad();
  Tensor w2 = Zeros({3, 1}, DType::kFloat64);
  Tensor b2 = Zeros({1}, DType::kFloat64);
  optim::Sgd sgd({w, b}, 0.1);
  for (int step = 0; step < 150; ++step) {
    ASSERT_TRUE(autograd::ZeroGrad({w, b}).ok());
    Tensor err = ops::MatMul(x, w) + b - y;
    ASSERT_TRUE(autograd::Backward(ops::Mean(err * err)).ok());
    ASSERT_TRUE(sgd.Step().ok());
    // By hand: d/dw mean(err^2) = 2/N x^T err, d/db = 2 mean(err).
    Tensor err2 = ops::MatMul(x, w2) + b2 - y;
    w2 = w2 - ops::MatMul(x, err2, true, false) * (0.1 * 2.0 / 32);
    b2 = b2 - ops::Mean(err2, 0) * (0.1 * 2.0);
  }
  const std::vector<double> got = Values(w), want = Values(w2);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  EXPECT_NEAR(Values(b)[0], Values(b2)[0], 1e-12);
  EXPECT_NEAR(Values(w)[0], 2.0, 0.1);
}

}  // namespace
}  // namespace eagervm

namespace eagervm {
namespace {

TEST(AutogradMemory, SavedTensorsAreFreedByBackward) {
  std::atomic<bool> freed{false};
  auto* data = new double[2]{3, 4};
  Tensor w = FromVector<double>({1, 2}, Shape{2}).RequiresGrad();
  Tensor loss;
  {
    Tensor x = FromBlob(data, Shape{2}, DType::kFloat64, [&freed](void* p) {
      delete[] static_cast<double*>(p);
      freed = true;
    });
    loss = ops::Sum(w * x);  // Mul saves x
  }
  ASSERT_TRUE(Sync().ok());
  EXPECT_FALSE(freed.load()) << "the tape must keep x until Backward";
  ASSERT_TRUE(autograd::Backward(loss).ok());
  ASSERT_TRUE(Sync().ok());
  EXPECT_TRUE(freed.load()) << "Backward must drop the tensors it saved";
  EXPECT_EQ(w.grad().ToVector<double>().value(), (std::vector<double>{3, 4}));
}

TEST(AutogradMemory, ALongTapeIsFreedWithoutRecursion) {
  Tensor w = FromVector<double>({1}, Shape{1}).RequiresGrad();
  Tensor acc = w;
  for (int i = 0; i < 200000; ++i) acc = acc + 1.0;
  ASSERT_TRUE(acc.requires_grad());
  acc = Tensor();  // frees 200k nodes: a recursive destructor would overflow the stack
  Tensor loss = ops::Sum(w * 2.0);
  ASSERT_TRUE(autograd::Backward(loss).ok());
  EXPECT_EQ(w.grad().ToVector<double>().value(), (std::vector<double>{2}));
}

// ---- Graph mode ----

struct Model {
  Tensor w, b;
  std::vector<Tensor> params() const { return {w, b}; }
};
Model MakeModel() {
  std::mt19937_64 rng(11);
  return Model{FromVector<double>(Random(rng, 4 * 3, -1, 1), Shape{4, 3}).RequiresGrad(),
               FromVector<double>(Random(rng, 3, -1, 1), Shape{3}).RequiresGrad()};
}
Tensor TrainStep(const Model& m, optim::Sgd& sgd, const Tensor& x, const Tensor& labels) {
  EXPECT_TRUE(autograd::ZeroGrad(m.params()).ok());
  Tensor loss = ops::CrossEntropy(ops::Relu(ops::MatMul(x, m.w)) + m.b, labels);
  EXPECT_TRUE(autograd::Backward(loss).ok());
  EXPECT_TRUE(sgd.Step().ok());
  return loss.Detach();
}

TEST(AutogradGraph, ACapturedTrainingStepReplaysBitwiseAsEager) {
  std::mt19937_64 rng(12);
  const Tensor x = FromVector<double>(Random(rng, 8 * 4, -1, 1), Shape{8, 4});
  const Tensor labels = FromVector<int64_t>({0, 1, 2, 0, 1, 2, 2, 1}, Shape{8});
  Model eager = MakeModel(), graph = MakeModel();
  optim::Sgd sgd_eager(eager.params(), 0.5, 0.9), sgd_graph(graph.params(), 0.5, 0.9);
  // One eager step each first, so every grad() exists when capturing.
  (void)TrainStep(eager, sgd_eager, x, labels);
  (void)TrainStep(graph, sgd_graph, x, labels);
  absl::StatusOr<Graph> g = Graph::Capture(
      {x.meta(), labels.meta()}, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
        return {TrainStep(graph, sgd_graph, in[0], in[1])};
      });
  ASSERT_TRUE(g.ok()) << g.status();
  for (int step = 0; step < 5; ++step) {
    const Tensor loss_eager = TrainStep(eager, sgd_eager, x, labels);
    absl::StatusOr<std::vector<Tensor>> out = g->Run({x, labels});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values((*out)[0]), Values(loss_eager)) << "step " << step;
    EXPECT_EQ(Values(graph.w), Values(eager.w)) << "step " << step;
    EXPECT_EQ(Values(graph.b), Values(eager.b)) << "step " << step;
  }
}

TEST(AutogradGraph, AGraphRunWritingASavedTensorFailsBackward) {
  std::mt19937_64 rng(13);
  const Tensor x = FromVector<double>(Random(rng, 8 * 4, -1, 1), Shape{8, 4});
  const Tensor labels = FromVector<int64_t>({0, 1, 2, 0, 1, 2, 2, 1}, Shape{8});
  Model m = MakeModel();
  optim::Sgd sgd(m.params(), 0.5);
  (void)TrainStep(m, sgd, x, labels);
  absl::StatusOr<Graph> g = Graph::Capture(
      {x.meta(), labels.meta()}, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
        return {TrainStep(m, sgd, in[0], in[1])};
      });
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor loss = ops::Sum(m.w * m.w);      // Mul saves w
  ASSERT_TRUE(g->Run({x, labels}).ok());  // the captured Sgd::Step writes w
  const std::vector<double> grad_before = Values(m.w.grad());
  absl::Status s = autograd::Backward(loss);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("written in place"), std::string::npos) << s;
  EXPECT_EQ(Values(m.w.grad()), grad_before);  // nothing queued
}

TEST(AutogradGraph, CapturingBeforeGradsExistIsAClearError) {
  Model m = MakeModel();
  optim::Sgd sgd(m.params(), 0.1);
  const Tensor labels = FromVector<int64_t>({0, 1}, Shape{2});
  absl::Status seen;
  absl::StatusOr<Graph> g =
      Graph::Capture({TensorMeta{Shape{2, 4}, DType::kFloat64, Device::Cpu()}},
                     [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
                       Tensor loss = ops::CrossEntropy(ops::MatMul(in[0], m.w) + m.b, labels);
                       seen = autograd::Backward(loss);
                       return {loss};
                     });
  EXPECT_EQ(seen.code(), absl::StatusCode::kFailedPrecondition) << seen;
  EXPECT_NE(seen.message().find("eagerly before capturing"), std::string::npos) << seen;
  EXPECT_FALSE(m.w.grad().defined());
  // The capture fails too: a graph of the forward pass alone would not train.
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kFailedPrecondition) << g.status();
}

// A refused Backward or Step whose Status the captured function drops still
// fails the capture (graph.md: the first error is kept), as an op's does.
TEST(AutogradGraph, ARefusalTheCapturedFunctionDropsFailsTheCapture) {
  Model m = MakeModel();
  optim::Sgd sgd(m.params(), 0.1);
  const Tensor labels = FromVector<int64_t>({0, 1}, Shape{2});
  absl::StatusOr<Graph> g =
      Graph::Capture({TensorMeta{Shape{2, 4}, DType::kFloat64, Device::Cpu()}},
                     [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
                       Tensor loss = ops::CrossEntropy(ops::MatMul(in[0], m.w) + m.b, labels);
                       (void)autograd::Backward(loss);  // refused: no grad() yet
                       (void)sgd.Step();                // refused: no gradients
                       return {loss};
                     });
  ASSERT_FALSE(g.ok()) << "a graph that skips the backward pass and the update";
  EXPECT_NE(g.status().message().find("eagerly before capturing"), std::string::npos) << g.status();
}

}  // namespace
}  // namespace eagervm
