// The backend conformance suite (backend_conformance.h): the storage-only
// and 16-bit dtypes (uint8, float16, bfloat16) through every op family,
// against the CPU, on compact, offset-view and strided inputs. Where the
// CPU refuses an op for a dtype (docs/ops.md's table), the backend must
// refuse it too; where the CPU computes it, the backend must equal it:
// exactly for uint8 and for bool/int64 results, within two units in the
// last place of the 16-bit format for float16/bfloat16 (the CPU computes in
// float32 and rounds once; a device may order a reduction differently or
// use its own transcendental functions).
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backend_conformance.h"

namespace eagervm::conformance {
namespace {

// Two units in the last place, relative: float16 has 10 fraction bits,
// bfloat16 7; uint8 and integer results are exact.
double Tolerance(DType result) {
  switch (result) {
    case DType::kFloat16:
      return 2.0 / 1024;
    case DType::kBFloat16:
      return 2.0 / 128;
    case DType::kFloat32:
      return 1e-5;
    case DType::kFloat64:
      return 1e-12;
    default:
      return 0;
  }
}

// The backend's result equals the CPU's, or both refuse at the call (an
// op the dtype table leaves out), or the backend lacks the op (noted).
void CheckOrBothRefuse(Lacking& lacking, const std::string& op, const std::string& how,
                       const Tensor& got, const Tensor& want) {
  if (!want.ok()) {
    EXPECT_FALSE(got.ok()) << op << how << ": the CPU refuses (" << want.status()
                           << ") but the backend accepts";
    return;
  }
  if (lacking(got, op)) return;
  ExpectNear(got, want, op + how, Tolerance(want.dtype()));
}

// A tensor of both sides, copied contiguously (for in-place ops).
Pair Copy(const Pair& p) { return {p.cpu.Contiguous(), p.dev.Contiguous()}; }

constexpr DType kNewDTypes[] = {DType::kUInt8, DType::kFloat16, DType::kBFloat16};

}  // namespace

// Elementwise, comparison, reduction, cast and in-place ops.
TEST_P(BackendConformance, NewDtypesElementwiseReductionsAndCasts) {
  std::mt19937 rng(21);
  NamedUnaryOps unary = NumericUnaryOps();
  unary.insert(unary.end(), {{"DivScalar", [](const Tensor& x) { return ops::DivScalar(x, 4); }},
                             {"Exp", ops::Exp},
                             {"Sigmoid", ops::Sigmoid},
                             {"Tanh", ops::Tanh},
                             {"Pow2", [](const Tensor& x) { return ops::Pow(x, 2.0); }},
                             {"Gelu", [](const Tensor& x) { return ops::Gelu(x); }},
                             {"GeluTanh", [](const Tensor& x) { return ops::Gelu(x, true); }},
                             {"Mean", [](const Tensor& x) { return ops::Mean(x); }},
                             {"Mean0", [](const Tensor& x) { return ops::Mean(x, 0, true); }},
                             {"Min0", [](const Tensor& x) { return ops::Min(x, 0); }},
                             {"Argmax0", [](const Tensor& x) { return ops::Argmax(x, 0); }},
                             {"Argmin1", [](const Tensor& x) { return ops::Argmin(x, 1, true); }},
                             {"Softmax1", [](const Tensor& x) { return ops::Softmax(x, 1); }},
                             {"LogSoftmax0", [](const Tensor& x) { return ops::LogSoftmax(x, 0); }},
                             {"Transpose", [](const Tensor& x) { return ops::Transpose(x); }}});
  NamedBinaryOps binary = NumericBinaryOps();
  // A divisor of at least 1 (uint8 would fail at run time on 0).
  binary.emplace_back("Div", [](const Tensor& a, const Tensor& b) {
    return ops::Div(a, ops::AddScalar(ops::Abs(b), 1));
  });
  constexpr DType kAll[] = {DType::kBool,    DType::kUInt8,    DType::kInt32,   DType::kInt64,
                            DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};
  Lacking lacking;
  for (DType dt : kNewDTypes) {
    const bool is_uint8 = dt == DType::kUInt8;
    std::vector<Variant> a = Variants(rng, 6, 5, dt, dev(), is_uint8 ? 0 : -2, is_uint8 ? 20 : 2);
    std::vector<Variant> b = Variants(rng, 6, 5, dt, dev(), is_uint8 ? 0 : -2, is_uint8 ? 20 : 2);
    std::vector<Variant> p = Variants(rng, 6, 5, dt, dev(), is_uint8 ? 1 : 0.1f, is_uint8 ? 20 : 4);
    for (size_t v = 0; v < a.size(); ++v) {
      const std::string how = " (" + std::string(ToString(dt)) + ", " + a[v].name + ")";
      const Pair& x = a[v].in;
      const Pair& y = b[v].in;
      for (const auto& [name, f] : unary) CheckOrBothRefuse(lacking, name, how, f(x.dev), f(x.cpu));
      for (const auto& [name, f] : binary) {
        CheckOrBothRefuse(lacking, name, how, f(x.dev, y.dev), f(x.cpu, y.cpu));
      }
      CheckOrBothRefuse(lacking, "Add", " broadcast row" + how, ops::Add(x.dev, y.dev.Slice(0, 1)),
                        ops::Add(x.cpu, y.cpu.Slice(0, 1)));
      const Pair& pos = p[v].in;
      CheckOrBothRefuse(lacking, "Sqrt", how, ops::Sqrt(pos.dev), ops::Sqrt(pos.cpu));
      CheckOrBothRefuse(lacking, "Log", how, ops::Log(pos.dev), ops::Log(pos.cpu));
      for (DType to : kAll) {
        CheckOrBothRefuse(lacking, "Cast", " to " + std::string(ToString(to)) + how,
                          ops::Cast(x.dev, to), ops::Cast(x.cpu, to));
      }
      // Mixed dtypes promote (numpy's table) the same way on both sides.
      for (DType other : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt32}) {
        CheckOrBothRefuse(lacking, "Add", " with " + std::string(ToString(other)) + how,
                          ops::Add(x.dev, ops::Cast(y.dev, other)),
                          ops::Add(x.cpu, ops::Cast(y.cpu, other)));
      }
      // In place, on compact copies.
      Pair s = Copy(x);
      ASSERT_EQ(ops::AddInplace(s.dev, y.dev).ok(), ops::AddInplace(s.cpu, y.cpu).ok()) << how;
      ASSERT_EQ(ops::SubInplace(s.dev, pos.dev).ok(), ops::SubInplace(s.cpu, pos.cpu).ok()) << how;
      ASSERT_EQ(ops::MulScalarInplace(s.dev, 3).ok(), ops::MulScalarInplace(s.cpu, 3).ok()) << how;
      ASSERT_EQ(ops::Axpy(s.dev, 2, y.dev).ok(), ops::Axpy(s.cpu, 2, y.cpu).ok()) << how;
      CheckOrBothRefuse(lacking, "AddInplace SubInplace MulScalarInplace Axpy", how, s.dev, s.cpu);
      Pair f = Copy(x);
      ASSERT_TRUE(ops::FillInplace(f.dev, 7).ok()) << how;
      ASSERT_TRUE(ops::FillInplace(f.cpu, 7).ok()) << how;
      ASSERT_TRUE(ops::CopyInto(f.dev.Slice(1, 3), y.dev.Slice(2, 4)).ok()) << how;
      ASSERT_TRUE(ops::CopyInto(f.cpu.Slice(1, 3), y.cpu.Slice(2, 4)).ok()) << how;
      CheckOrBothRefuse(lacking, "FillInplace CopyInto", how, f.dev, f.cpu);
    }
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

// The model ops: MatMul (transpose flags, strided), BatchMatMul,
// LayerNorm, CrossEntropy, IndexSelect, OneHot, Concat, Split.
TEST_P(BackendConformance, NewDtypesModelOps) {
  std::mt19937 rng(22);
  Lacking lacking;
  for (DType dt : kNewDTypes) {
    const bool is_uint8 = dt == DType::kUInt8;
    const float lo = is_uint8 ? 0 : -2, hi = is_uint8 ? 8 : 2;
    std::vector<Variant> a = Variants(rng, 5, 7, dt, dev(), lo, hi);
    std::vector<Variant> b = Variants(rng, 7, 3, dt, dev(), lo, hi);
    for (size_t v = 0; v < a.size(); ++v) {
      const std::string how = " (" + std::string(ToString(dt)) + ", " + a[v].name + ")";
      const Pair& x = a[v].in;
      const Pair& y = b[v].in;
      CheckOrBothRefuse(lacking, "MatMul", how, ops::MatMul(x.dev, y.dev),
                        ops::MatMul(x.cpu, y.cpu));
      CheckOrBothRefuse(lacking, "MatMul(transposes)", " tA tB" + how,
                        ops::MatMul(y.dev, x.dev, true, true),
                        ops::MatMul(y.cpu, x.cpu, true, true));
      Tensor wc = ops::Cast(FromVector<float>(RandomFloats(rng, 7, 0.5f, 2), {7}), dt);
      Tensor bc = ops::Cast(FromVector<float>(RandomFloats(rng, 7, lo, hi), {7}), dt);
      CheckOrBothRefuse(lacking, "LayerNorm", how,
                        ops::LayerNorm(x.dev, wc.To(dev()), bc.To(dev())),
                        ops::LayerNorm(x.cpu, wc, bc));
      Pair labels = Labels(rng, 5, 7, dev());
      CheckOrBothRefuse(lacking, "CrossEntropy", how, ops::CrossEntropy(x.dev, labels.dev),
                        ops::CrossEntropy(x.cpu, labels.cpu));
      Pair idx = Labels(rng, 4, 5, dev());
      CheckOrBothRefuse(lacking, "IndexSelect", " axis 0" + how,
                        ops::IndexSelect(x.dev, 0, idx.dev), ops::IndexSelect(x.cpu, 0, idx.cpu));
      Pair idx1 = Labels(rng, 3, 7, dev());
      CheckOrBothRefuse(lacking, "IndexSelect", " axis 1" + how,
                        ops::IndexSelect(x.dev, 1, idx1.dev), ops::IndexSelect(x.cpu, 1, idx1.cpu));
      CheckOrBothRefuse(lacking, "Concat", how, ops::Concat({x.dev, x.dev.Slice(1, 3)}, 0),
                        ops::Concat({x.cpu, x.cpu.Slice(1, 3)}, 0));
      // Rows 0..3 (a view of the variant), in two parts.
      std::vector<Tensor> sd = ops::Split(x.dev.Slice(0, 4), 2, 0),
                          sc = ops::Split(x.cpu.Slice(0, 4), 2, 0);
      ASSERT_EQ(sd.size(), sc.size()) << how;
      for (size_t i = 0; i < sd.size(); ++i) {
        CheckOrBothRefuse(lacking, "Split", " part " + std::to_string(i) + how, sd[i], sc[i]);
      }
      CheckOrBothRefuse(lacking, "OneHot", how, ops::OneHot(idx.dev, 5, dt),
                        ops::OneHot(idx.cpu, 5, dt));
    }
    std::vector<float> av = RandomFloats(rng, 60, lo, hi), bv = RandomFloats(rng, 30, lo, hi);
    Tensor ac = ops::Cast(FromVector<float>(av, {3, 4, 5}), dt),
           bc = ops::Cast(FromVector<float>(bv, {3, 5, 2}), dt);
    const std::string how = " (" + std::string(ToString(dt)) + ")";
    CheckOrBothRefuse(lacking, "BatchMatMul", how, ops::BatchMatMul(ac.To(dev()), bc.To(dev())),
                      ops::BatchMatMul(ac, bc));
    CheckOrBothRefuse(lacking, "BatchMatMul", " strided" + how,
                      ops::BatchMatMul(ac.To(dev()).Permute({0, 2, 1}), ac.To(dev())),
                      ops::BatchMatMul(ac.Permute({0, 2, 1}), ac));
  }
  ASSERT_TRUE(Sync().ok());
  CONFORMANCE_SKIP_IF_LACKING(lacking);
}

}  // namespace eagervm::conformance
