// The backend conformance suite (backend_conformance.h): every op family and
// dtype against the CPU, on contiguous, offset-view and strided (transposed)
// inputs. An op the backend has no kernel for refuses with Unimplemented and
// its case skips, naming it; anything else must match the CPU.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backend_conformance.h"

namespace eagervm::conformance {

// Elementwise, comparison, Where and reduction ops in every numeric dtype.
TEST_P(BackendConformance, ElementwiseAndReductionsInEveryDtype) {
  std::mt19937 rng(11);
  NamedUnaryOps unary = NumericUnaryOps();
  unary.insert(unary.end(),
               {{"MulScalarNeg", [](const Tensor& x) { return ops::MulScalar(x, -2); }},
                {"CastF64", [](const Tensor& x) { return ops::Cast(x, DType::kFloat64); }},
                {"CastI64", [](const Tensor& x) { return ops::Cast(x, DType::kInt64); }},
                {"CastBool", [](const Tensor& x) { return ops::Cast(x, DType::kBool); }}});
  const NamedBinaryOps& binary = NumericBinaryOps();
  Lacking lacking;
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    const float scale = (dt == DType::kInt32 || dt == DType::kInt64) ? 10.0f : 2.0f;
    std::vector<Variant> a = Variants(rng, 6, 5, dt, dev(), -scale, scale);
    std::vector<Variant> b = Variants(rng, 6, 5, dt, dev(), -scale, scale);
    for (size_t v = 0; v < a.size(); ++v) {
      const std::string how =
          std::string(" (") + std::string(ToString(dt)) + ", " + a[v].name + ")";
      const Pair& x = a[v].in;
      const Pair& y = b[v].in;
      for (const auto& [name, f] : unary) Check(lacking, name, how, f(x.dev), f(x.cpu));
      for (const auto& [name, f] : binary) {
        Check(lacking, name, how, f(x.dev, y.dev), f(x.cpu, y.cpu));
      }
      // A broadcast row, and equal elements (comparisons' edge).
      Check(lacking, "Add", " broadcast row" + how, ops::Add(x.dev, y.dev.Slice(0, 1)),
            ops::Add(x.cpu, y.cpu.Slice(0, 1)));
      Check(lacking, "Le", " self" + how, ops::Le(x.dev, x.dev), ops::Le(x.cpu, x.cpu));
    }
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// Float-only elementwise ops and Min, float32 and float64.
TEST_P(BackendConformance, FloatOpsInFloat32AndFloat64) {
  std::mt19937 rng(12);
  using Unary = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<std::string, Unary>> unary = {
      {"Exp", ops::Exp},
      {"Sigmoid", ops::Sigmoid},
      {"Tanh", ops::Tanh},
      {"Pow2", [](const Tensor& x) { return ops::Pow(x, 2.0); }},
      {"Pow3", [](const Tensor& x) { return ops::Pow(x, 3.0); }},
      {"DivScalar", [](const Tensor& x) { return ops::DivScalar(x, 4.0); }},
      {"Mean", [](const Tensor& x) { return ops::Mean(x); }},
      {"Mean0", [](const Tensor& x) { return ops::Mean(x, 0, true); }},
      {"Gelu", [](const Tensor& x) { return ops::Gelu(x); }},
      {"GeluTanh", [](const Tensor& x) { return ops::Gelu(x, true); }},
      {"Min", [](const Tensor& x) { return ops::Min(x); }},
      {"Min0", [](const Tensor& x) { return ops::Min(x, 0); }},
      {"Min1", [](const Tensor& x) { return ops::Min(x, 1, true); }},
  };
  Lacking lacking;
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    std::vector<Variant> a = Variants(rng, 7, 4, dt, dev());
    std::vector<Variant> p = Variants(rng, 7, 4, dt, dev(), 0.1f, 4.0f);
    for (size_t v = 0; v < a.size(); ++v) {
      const std::string how =
          std::string(" (") + std::string(ToString(dt)) + ", " + a[v].name + ")";
      for (const auto& [name, f] : unary) {
        Check(lacking, name, how, f(a[v].in.dev), f(a[v].in.cpu), 1e-4);
      }
      const Pair& x = p[v].in;
      ExpectNear(ops::Sqrt(x.dev), ops::Sqrt(x.cpu), "Sqrt" + how, 1e-5);
      ExpectNear(ops::Log(x.dev), ops::Log(x.cpu), "Log" + how, 1e-5);
      ExpectNear(ops::Pow(x.dev, 0.5), ops::Pow(x.cpu, 0.5), "Pow0.5" + how, 1e-5);
      ExpectNear(ops::Div(a[v].in.dev, x.dev), ops::Div(a[v].in.cpu, x.cpu), "Div" + how, 1e-5);
    }
  }
  // NaN propagates through Max/Min/Maximum/Minimum like on the CPU.
  std::vector<float> n = {1, NAN, -3, 4, 5, 6};
  Tensor nc = FromVector<float>(n, {2, 3}), nd = nc.To(dev());
  ExpectNear(ops::Max(nd, 1), ops::Max(nc, 1), "Max with NaN");
  ExpectNear(ops::Maximum(nd, ops::Neg(nd)), ops::Maximum(nc, ops::Neg(nc)), "Maximum NaN");
  Check(lacking, "Min", " with NaN", ops::Min(nd, 1), ops::Min(nc, 1));
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// Softmax, LogSoftmax (both axes), LayerNorm, CrossEntropy.
TEST_P(BackendConformance, SoftmaxLayerNormCrossEntropy) {
  std::mt19937 rng(13);
  Lacking lacking;
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    std::vector<Variant> a = Variants(rng, 6, 9, dt, dev(), -4, 4);
    for (const Variant& v : a) {
      const std::string how = std::string(" (") + std::string(ToString(dt)) + ", " + v.name + ")";
      const Pair& x = v.in;
      for (int axis : {0, 1, -1}) {
        Check(lacking, "Softmax", how, ops::Softmax(x.dev, axis), ops::Softmax(x.cpu, axis));
        Check(lacking, "LogSoftmax", how, ops::LogSoftmax(x.dev, axis),
              ops::LogSoftmax(x.cpu, axis));
      }
      std::vector<Variant> wb = Variants(rng, 2, 9, dt, dev());
      const Pair w = {wb[0].in.cpu.Slice(0, 1).Reshape({9}), wb[0].in.dev.Slice(0, 1).Reshape({9})};
      const Pair b = {wb[0].in.cpu.Slice(1, 2).Reshape({9}), wb[0].in.dev.Slice(1, 2).Reshape({9})};
      Check(lacking, "LayerNorm", how, ops::LayerNorm(x.dev, w.dev, b.dev),
            ops::LayerNorm(x.cpu, w.cpu, b.cpu), 1e-4);
      Pair labels = Labels(rng, 6, 9, dev());
      Check(lacking, "CrossEntropy", how, ops::CrossEntropy(x.dev, labels.dev),
            ops::CrossEntropy(x.cpu, labels.cpu));
    }
  }
  // Large logits stay finite, as on the CPU.
  Tensor big = ops::MulScalar(FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}), 1000.0);
  Check(lacking, "Softmax", " of large logits", ops::Softmax(big.To(dev()), 1),
        ops::Softmax(big, 1));
  // A label out of range poisons the result when the op runs: an error at
  // Wait, never a number.
  Tensor bad_labels = FromVector<int64_t>({0, 7}, {2}, dev());
  Tensor ce = ops::CrossEntropy(big.To(dev()), bad_labels);
  if (!lacking(ce, "CrossEntropy")) {
    ASSERT_TRUE(ce.ok()) << ce.status();
    EXPECT_EQ(ce.Wait().code(), absl::StatusCode::kInvalidArgument) << ce.Wait();
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// Argmax, Argmin (ties: the first), OneHot, IndexSelect (an embedding
// lookup; an index out of range poisons the result).
TEST_P(BackendConformance, ArgmaxOneHotIndexSelect) {
  std::mt19937 rng(14);
  Lacking lacking;
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    std::vector<Variant> a = Variants(rng, 5, 7, dt, dev(), -3, 3);  // ints: many ties
    for (const Variant& v : a) {
      const std::string how = std::string(" (") + std::string(ToString(dt)) + ", " + v.name + ")";
      for (int axis : {0, 1}) {
        Check(lacking, "Argmax", how, ops::Argmax(v.in.dev, axis), ops::Argmax(v.in.cpu, axis));
        Check(lacking, "Argmin", how, ops::Argmin(v.in.dev, axis, true),
              ops::Argmin(v.in.cpu, axis, true));
      }
      Pair idx = Labels(rng, 4, 5, dev());
      Check(lacking, "IndexSelect", " axis 0" + how, ops::IndexSelect(v.in.dev, 0, idx.dev),
            ops::IndexSelect(v.in.cpu, 0, idx.cpu));
      Pair idx1 = Labels(rng, 3, 7, dev());
      Check(lacking, "IndexSelect", " axis 1" + how, ops::IndexSelect(v.in.dev, 1, idx1.dev),
            ops::IndexSelect(v.in.cpu, 1, idx1.cpu));
    }
  }
  Pair idx = Labels(rng, 6, 4, dev());
  for (DType dt : {DType::kFloat32, DType::kInt64}) {
    Check(lacking, "OneHot", std::string(" ") + std::string(ToString(dt)),
          ops::OneHot(idx.dev, 4, dt), ops::OneHot(idx.cpu, 4, dt));
  }
  Tensor table = Full({5, 3}, 1.0f, DType::kFloat32, dev());
  Tensor bad = ops::IndexSelect(table, 0, FromVector<int64_t>({1, 5}, {2}, dev()));
  if (!lacking(bad, "IndexSelect")) {
    ASSERT_TRUE(bad.ok()) << bad.status();
    EXPECT_EQ(bad.Wait().code(), absl::StatusCode::kInvalidArgument) << bad.Wait();
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// IndexAdd (repeated indices add in index order: exactly the CPU's values),
// and a training step of a tiny model (lookup, MatMul, CrossEntropy;
// backward through IndexAdd and OneHot; the optimizers' fused updates).
TEST_P(BackendConformance, IndexAddAndATrainingStep) {
  std::mt19937 rng(17);
  Lacking lacking;
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64}) {
    std::vector<Variant> a = Variants(rng, 5, 7, dt, dev(), -3, 3);
    std::vector<Variant> s = Variants(rng, 9, 7, dt, dev(), -1000, 1000);
    Pair idx = Labels(rng, 9, 5, dev());  // 9 rows into 5: repeats
    for (size_t v = 0; v < a.size(); ++v) {
      const std::string how =
          std::string(" (") + std::string(ToString(dt)) + ", " + a[v].name + ")";
      Check(lacking, "IndexAdd", how, ops::IndexAdd(a[v].in.dev, 0, idx.dev, s[v].in.dev),
            ops::IndexAdd(a[v].in.cpu, 0, idx.cpu, s[v].in.cpu), 0);
    }
  }
  Tensor bad = ops::IndexAdd(Zeros({3, 2}, DType::kFloat32, dev()), 0,
                             FromVector<int64_t>({0, -4}, {2}, dev()),
                             Zeros({2, 2}, DType::kFloat32, dev()));
  if (!lacking(bad, "IndexAdd")) {
    ASSERT_TRUE(bad.ok()) << bad.status();
    EXPECT_EQ(bad.Wait().code(), absl::StatusCode::kInvalidArgument) << bad.Wait();
  }
  ASSERT_TRUE(Sync().ok());
  // Two steps of each optimizer on both devices from the same start.
  const std::vector<float> table0 = RandomFloats(rng, 24, -1, 1), w0 = RandomFloats(rng, 12, -1, 1);
  for (int opt = 0; opt < 2; ++opt) {
    std::vector<std::vector<Tensor>> params;
    bool lacks = false;
    for (Device d : {Device::Cpu(), dev()}) {
      const Tensor table = FromVector<float>(table0, {6, 4}, d).RequiresGrad();
      const Tensor w = FromVector<float>(w0, {4, 3}, d).RequiresGrad();
      const Tensor tokens = FromVector<int64_t>({5, 1, 1, 0, 3}, {5}, d);
      const Tensor labels = FromVector<int64_t>({2, 0, 0, 1, 2}, {5}, d);
      optim::Sgd sgd({table, w}, 0.1, 0.9, 0.01);
      optim::Adam adam({table, w}, 0.01);
      for (int step = 0; step < 2; ++step) {
        ASSERT_TRUE(autograd::ZeroGrad({table, w}).ok());
        Tensor loss = ops::CrossEntropy(ops::MatMul(ops::IndexSelect(table, 0, tokens), w), labels);
        lacks = lacking(loss, "CrossEntropy or IndexSelect");
        if (lacks) break;
        absl::Status st = autograd::Backward(loss);
        ASSERT_TRUE(st.ok()) << st;
        st = opt == 0 ? sgd.Step() : adam.Step();
        ASSERT_TRUE(st.ok()) << st;
      }
      params.push_back({table, w});
    }
    for (size_t i = 0; i < params[0].size() && !lacks; ++i) {
      Check(lacking, opt == 0 ? "Sgd step" : "Adam step", " param " + std::to_string(i),
            params[1][i], params[0][i], 1e-5);
    }
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// Concat and Split along both axes, of contiguous and strided parts.
TEST_P(BackendConformance, ConcatAndSplit) {
  std::mt19937 rng(15);
  Lacking lacking;
  for (DType dt : {DType::kFloat32, DType::kInt64}) {
    std::vector<Variant> a = Variants(rng, 4, 6, dt, dev());
    std::vector<Variant> b = Variants(rng, 4, 6, dt, dev());
    for (size_t v = 0; v < a.size(); ++v) {
      const std::string how =
          std::string(" (") + std::string(ToString(dt)) + ", " + a[v].name + ")";
      for (int axis : {0, 1}) {
        const std::string at = " axis " + std::to_string(axis) + how;
        Check(lacking, "Concat", at, ops::Concat({a[v].in.dev, b[v].in.dev, a[v].in.dev}, axis),
              ops::Concat({a[v].in.cpu, b[v].in.cpu, a[v].in.cpu}, axis));
        std::vector<Tensor> sd = ops::Split(a[v].in.dev, 2, axis);
        std::vector<Tensor> sc = ops::Split(a[v].in.cpu, 2, axis);
        ASSERT_EQ(sd.size(), 2u);
        for (size_t i = 0; i < sd.size(); ++i) {
          Check(lacking, "Split", " part " + std::to_string(i) + at, sd[i], sc[i]);
        }
      }
    }
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// MatMul (plain, with transpose flags, of strided operands), BatchMatMul.
TEST_P(BackendConformance, MatMulTransposeFlagsAndBatchMatMul) {
  std::mt19937 rng(16);
  Lacking lacking;
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const std::string how = std::string(" (") + std::string(ToString(dt)) + ")";
    std::vector<Variant> a = Variants(rng, 5, 7, dt, dev());  // [5,7]
    std::vector<Variant> b = Variants(rng, 7, 3, dt, dev());  // [7,3]
    for (size_t v = 0; v < a.size(); ++v) {
      const Pair& x = a[v].in;
      const Pair& y = b[v].in;
      const std::string w = how + " " + a[v].name;
      Check(lacking, "MatMul", w, ops::MatMul(x.dev, y.dev), ops::MatMul(x.cpu, y.cpu));
      // y^T x^T: [3,7] @ [7,5], of strided operands too.
      Check(lacking, "MatMul(transposes)", " tA tB" + w, ops::MatMul(y.dev, x.dev, true, true),
            ops::MatMul(y.cpu, x.cpu, true, true));
      Tensor xc = x.cpu.Contiguous(), xd = x.dev.Contiguous();
      Check(lacking, "MatMul(transposes)", " tB" + w, ops::MatMul(xd, xd, false, true),
            ops::MatMul(xc, xc, false, true));
      Check(lacking, "MatMul(transposes)", " tA" + w, ops::MatMul(xd, xd, true, false),
            ops::MatMul(xc, xc, true, false));
    }
    // Batched: [3,4,5] @ [3,5,2], and with both transposed, of a permuted view.
    std::vector<float> av = RandomFloats(rng, 60, -1, 1), bv = RandomFloats(rng, 30, -1, 1);
    Tensor ac = ops::Cast(FromVector<float>(av, {3, 4, 5}), dt),
           bc = ops::Cast(FromVector<float>(bv, {3, 5, 2}), dt);
    Tensor ad = ac.To(dev()), bd = bc.To(dev());
    Check(lacking, "BatchMatMul", how, ops::BatchMatMul(ad, bd), ops::BatchMatMul(ac, bc));
    Check(lacking, "BatchMatMul", " tA tB" + how, ops::BatchMatMul(bd, ad, true, true),
          ops::BatchMatMul(bc, ac, true, true));
    Tensor ap_c = ac.Permute({0, 2, 1}), ap_d = ad.Permute({0, 2, 1});  // [3,5,4] strided
    Check(lacking, "BatchMatMul", " strided" + how, ops::BatchMatMul(ap_d, ad),
          ops::BatchMatMul(ap_c, ac));
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// RandomUniform: the shape and dtype asked for, every value in [lo, hi),
// and the same tensor as the CPU's for the same seed (element i depends
// only on (seed, i)).
TEST_P(BackendConformance, RandomUniformShapeRangeAndSeed) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    Tensor d = ops::RandomUniform({33, 17}, dt, dev(), 1234, -2.0, 3.0);
    Lacking lacking;
    if (lacking(d, "RandomUniform")) GTEST_SKIP() << lacking.ToString();
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d.shape(), (Shape{33, 17}));
    EXPECT_EQ(d.dtype(), dt);
    EXPECT_EQ(d.device(), dev());
    std::vector<double> v = AsDoubles(d);
    ASSERT_EQ(v.size(), 33u * 17u);
    double lo = 1e9, hi = -1e9;
    for (double x : v) {
      ASSERT_GE(x, -2.0);
      ASSERT_LT(x, 3.0);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    EXPECT_LT(lo, -1.5);  // spread over the range, not a constant
    EXPECT_GT(hi, 2.5);
    ExpectNear(d, ops::RandomUniform({33, 17}, dt, Device::Cpu(), 1234, -2.0, 3.0),
               std::string("RandomUniform = the CPU's, ") + std::string(ToString(dt)), 1e-6);
    EXPECT_NE(AsDoubles(ops::RandomUniform({33, 17}, dt, dev(), 1235, -2.0, 3.0)), v);
  }
  ASSERT_TRUE(Sync().ok());
}

// An op with no kernel for the backend refuses at the call, on the calling
// thread, with Unimplemented naming the op (what makes the cases above skip
// instead of passing); a dtype no device has a kernel for is InvalidArgument.
TEST_P(BackendConformance, AnOpTheBackendLacksIsUnimplementedAtTheCall) {
  Tensor x = Full({4}, 2.0f, DType::kFloat32, dev());
  absl::StatusOr<TensorList> y = ops::Call("ConfCpuOnly", {x});
  if (dev().is_cpu()) {
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(Floats((*y)[0]), (std::vector<float>(4, 2.0f)));
  } else {
    EXPECT_EQ(y.status().code(), absl::StatusCode::kUnimplemented) << y.status();
    EXPECT_NE(y.status().message().find("ConfCpuOnly: no cuda kernel"), std::string::npos)
        << y.status();
  }
  Tensor e = ops::Exp(Full({4}, 1, DType::kInt32, dev()));
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument) << e.status();
  ASSERT_TRUE(Sync().ok());
}

}  // namespace eagervm::conformance
