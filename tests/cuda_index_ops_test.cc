// The CUDA kernels of IndexSelect, IndexAdd, OneHot and CrossEntropy against
// the CPU kernels on the same inputs: every dtype each takes, several axes,
// repeated indices (IndexAdd bitwise the CPU's, run after run), empty
// tensors, logits of 1000 and more, and an index out of range, which must
// poison the result (and what is computed from it) with the CPU's message
// naming the first bad index. Needs a GPU; skips otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using testing_cuda::kGpu;

class CudaIndexOps : public ::testing::Test {
 protected:
  void SetUp() override { EAGERVM_REQUIRE_CUDA(); }
  std::mt19937_64 rng_{2024};
};

constexpr DType kEvery[] = {DType::kBool,    DType::kInt32, DType::kInt64,   DType::kFloat32,
                            DType::kFloat64, DType::kUInt8, DType::kFloat16, DType::kBFloat16};

// A CPU tensor of `dtype` from uniform values in [lo, hi) (cast from float64).
Tensor RandomOf(std::mt19937_64& rng, Shape shape, DType dtype, double lo = -3, double hi = 3) {
  std::vector<double> v(static_cast<size_t>(shape.numel()));
  std::uniform_real_distribution<double> d(lo, hi);
  for (double& x : v) x = d(rng);
  return ops::Cast(FromVector<double>(v, shape), dtype);
}

Tensor Indices(std::mt19937_64& rng, Shape shape, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(shape.numel()));
  std::uniform_int_distribution<int64_t> d(0, n - 1);
  for (int64_t& x : v) x = d(rng);
  return FromVector<int64_t>(v, shape);
}

// t's values (any device, any dtype) as float64 on the host.
std::vector<double> Doubles(const Tensor& t) {
  EXPECT_TRUE(t.ok()) << t.status();
  absl::StatusOr<std::vector<double>> v =
      ops::Cast(t.To(Device::Cpu()), DType::kFloat64).ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>{};
}

// Same shape, dtype and elements (exactly: these ops only move or add).
void ExpectSame(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_TRUE(want.ok()) << what << ": " << want.status();
  ASSERT_TRUE(got.ok()) << what << ": " << got.status();
  EXPECT_EQ(got.device(), kGpu) << what;
  EXPECT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(got.dtype(), want.dtype()) << what;
  EXPECT_EQ(Doubles(got), Doubles(want)) << what;
}

TEST_F(CudaIndexOps, IndexSelectEqualsTheCpuInEveryDtypeAndAxis) {
  for (DType dt : kEvery) {
    const std::string name(ToString(dt));
    Tensor x = RandomOf(rng_, {4, 5, 6}, dt, dt == DType::kUInt8 ? 0 : -3, 8);
    Tensor xg = x.To(kGpu);
    for (int axis : {0, 1, 2, -1}) {
      const int64_t n = x.size(axis < 0 ? 2 : axis);
      // Repeats, and a 2-D index: numpy.take's shape.
      for (Shape ishape : {Shape{7}, Shape{2, 3}, Shape{0}}) {
        Tensor idx = Indices(rng_, ishape, n);
        ExpectSame(ops::IndexSelect(xg, axis, idx.To(kGpu)), ops::IndexSelect(x, axis, idx),
                   "IndexSelect " + name + " axis " + std::to_string(axis));
      }
    }
  }
  ASSERT_TRUE(Sync().ok());
}

TEST_F(CudaIndexOps, IndexSelectOfALargeTableAndOfEmptyRows) {
  // An embedding lookup: 300 ids into a [1000, 65] table (rows that are not a
  // multiple of anything convenient), and rows of 0 elements.
  Tensor table = RandomOf(rng_, {1000, 65}, DType::kFloat32);
  Tensor ids = Indices(rng_, {300}, 1000);
  ExpectSame(ops::IndexSelect(table.To(kGpu), 0, ids.To(kGpu)), ops::IndexSelect(table, 0, ids),
             "lookup");
  Tensor empty_rows = Zeros({5, 0}, DType::kFloat32);
  Tensor i3 = FromVector<int64_t>({4, 0, 4}, {3});
  ExpectSame(ops::IndexSelect(empty_rows.To(kGpu), 0, i3.To(kGpu)),
             ops::IndexSelect(empty_rows, 0, i3), "empty rows");
  ASSERT_TRUE(Sync().ok());
}

// Repeated indices add in index order: sources of very different magnitudes
// make any other order give other bits. Twice, to see the same bits again.
TEST_F(CudaIndexOps, IndexAddIsBitwiseTheCpusWithRepeatedIndices) {
  for (DType dt : {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
    const std::string name(ToString(dt));
    const bool is_float = dt == DType::kFloat32 || dt == DType::kFloat64;
    struct Case {
      Shape x;
      int axis;
      Shape index;
    };
    for (const Case& c : {Case{{6, 5}, 0, {40}}, Case{{3, 7, 4}, 1, {5, 9}},
                          Case{{2, 3, 33}, -1, {70}}, Case{{3, 2}, 0, {5000}}}) {
      const int axis = c.axis < 0 ? c.x.rank() - 1 : c.axis;
      Tensor x = RandomOf(rng_, c.x, dt, -100, 100);
      Tensor idx = Indices(rng_, c.index, c.x[axis]);
      Tensor picked = ops::IndexSelect(x, axis, idx);  // source's shape
      Tensor src = RandomOf(rng_, picked.shape(), dt, -100, 100);
      if (is_float) src = src * ops::Exp(RandomOf(rng_, picked.shape(), dt, -12, 12));
      Tensor want = ops::IndexAdd(x, c.axis, idx, src);
      Tensor xg = x.To(kGpu), ig = idx.To(kGpu), sg = src.To(kGpu);
      const std::string what = "IndexAdd " + name + " x " + c.x.ToString() + " axis " +
                               std::to_string(c.axis) + " index " + c.index.ToString();
      ExpectSame(ops::IndexAdd(xg, c.axis, ig, sg), want, what);
      ExpectSame(ops::IndexAdd(xg, c.axis, ig, sg), want, what + " (again)");
      ExpectSame(xg, x, what + ": x unchanged");
    }
  }
  ASSERT_TRUE(Sync().ok());
}

TEST_F(CudaIndexOps, IndexAddOfNothingIsX) {
  Tensor x = RandomOf(rng_, {4, 3}, DType::kFloat32);
  Tensor none = Zeros({0}, DType::kInt64);
  ExpectSame(ops::IndexAdd(x.To(kGpu), 0, none.To(kGpu), Zeros({0, 3}, DType::kFloat32, kGpu)), x,
             "empty index");
  Tensor e = Zeros({0, 3}, DType::kFloat64);  // no rows at all
  ExpectSame(ops::IndexAdd(e.To(kGpu), 1, FromVector<int64_t>({2, 2}, {2}, kGpu),
                           Zeros({0, 2}, DType::kFloat64, kGpu)),
             e, "empty x");
  ASSERT_TRUE(Sync().ok());
}

TEST_F(CudaIndexOps, OneHotEqualsTheCpuInEveryDtype) {
  Tensor idx = Indices(rng_, {2, 3}, 4);
  Tensor many = Indices(rng_, {500}, 37);
  for (DType dt : kEvery) {
    const std::string name(ToString(dt));
    ExpectSame(ops::OneHot(idx.To(kGpu), 4, dt), ops::OneHot(idx, 4, dt), "OneHot " + name);
    ExpectSame(ops::OneHot(many.To(kGpu), 37, dt), ops::OneHot(many, 37, dt), "OneHot 37 " + name);
  }
  Tensor none = Zeros({0}, DType::kInt64);
  ExpectSame(ops::OneHot(none.To(kGpu), 3), ops::OneHot(none, 3), "no index");
  ExpectSame(ops::OneHot(none.To(kGpu), 0), ops::OneHot(none, 0), "no classes, no index");
  ASSERT_TRUE(Sync().ok());
}

// Two units in the last place for the 16-bit floats (the CPU computes in
// float32 and rounds once, as the GPU does); float32's exps differ by an
// ulp or two between the CPU's and CUDA's exp.
double Tolerance(DType dt) {
  switch (dt) {
    case DType::kFloat16:
      return 2.0 / 1024;
    case DType::kBFloat16:
      return 2.0 / 128;
    case DType::kFloat64:
      return 1e-12;
    default:
      return 1e-5;
  }
}

void ExpectClose(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_TRUE(want.ok()) << what << ": " << want.status();
  ASSERT_TRUE(got.ok()) << what << ": " << got.status();
  EXPECT_EQ(got.device(), kGpu) << what;
  EXPECT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(got.dtype(), want.dtype()) << what;
  const std::vector<double> g = Doubles(got), w = Doubles(want);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " at " << i << ": " << g[i];
    } else {
      EXPECT_NEAR(g[i], w[i], tol * std::max(1.0, std::fabs(w[i]))) << what << " at " << i;
    }
  }
}

TEST_F(CudaIndexOps, CrossEntropyEqualsTheCpuInEveryFloatDtype) {
  struct Case {
    int64_t rows, classes;
    double lo, hi;
  };
  // Fewer classes than a warp, more, many rows; logits of 1000 and of 1e4
  // (an exp without the maximum subtracted would overflow).
  for (const Case& c : {Case{7, 5, -4, 4}, Case{3, 100, -4, 4}, Case{257, 33, -20, 20},
                        Case{6, 9, 995, 1005}, Case{4, 70, 1e4, 1.001e4}}) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
      Tensor x = RandomOf(rng_, {c.rows, c.classes}, dt, c.lo, c.hi);
      Tensor labels = Indices(rng_, {c.rows}, c.classes);
      Tensor want = ops::CrossEntropy(x, labels);
      Tensor got = ops::CrossEntropy(x.To(kGpu), labels.To(kGpu));
      const std::string what = "CrossEntropy " + std::string(ToString(dt)) + " [" +
                               std::to_string(c.rows) + "," + std::to_string(c.classes) + "] in [" +
                               std::to_string(c.lo) + ", " + std::to_string(c.hi) + ")";
      ExpectClose(got, want, Tolerance(dt), what);
      const std::vector<double> v = Doubles(got);
      ASSERT_EQ(v.size(), 1u);
      EXPECT_TRUE(std::isfinite(v[0])) << what;
    }
  }
  ASSERT_TRUE(Sync().ok());
}

TEST_F(CudaIndexOps, CrossEntropyOfNoRowsAndOfANanRowIsNan) {
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    Tensor none = ops::CrossEntropy(Zeros({0, 4}, dt, kGpu), Zeros({0}, DType::kInt64, kGpu));
    ExpectClose(none, ops::CrossEntropy(Zeros({0, 4}, dt), Zeros({0}, DType::kInt64)), 0,
                "no rows " + std::string(ToString(dt)));
    Tensor x = ops::Cast(FromVector<double>({1, NAN, 2, 3, 4, 5}, {2, 3}), dt);
    Tensor labels = FromVector<int64_t>({0, 2}, {2});
    ExpectClose(ops::CrossEntropy(x.To(kGpu), labels.To(kGpu)), ops::CrossEntropy(x, labels), 0,
                "NaN row " + std::string(ToString(dt)));
  }
  ASSERT_TRUE(Sync().ok());
}

// The error the CPU gives for the same call: the GPU must give the same.
std::string CpuError(const Tensor& t) {
  absl::Status s = t.Wait();
  EXPECT_FALSE(s.ok());
  (void)Sync();
  return std::string(s.message());
}

void ExpectPoisonedAsCpu(const Tensor& got, const Tensor& want, const std::string& needle) {
  const std::string cpu = CpuError(want);
  EXPECT_NE(cpu.find(needle), std::string::npos) << cpu;
  ASSERT_TRUE(got.ok()) << got.status();  // accepted at the call: found when it runs
  absl::Status s = got.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(std::string(s.message()), cpu);
  (void)Sync();
}

TEST_F(CudaIndexOps, AnIndexOutOfRangePoisonsTheResultNamingTheFirst) {
  Tensor w = FromVector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor wg = w.To(kGpu);
  for (int64_t bad : {int64_t{3}, int64_t{-1}, std::numeric_limits<int64_t>::min(),
                      std::numeric_limits<int64_t>::max()}) {
    // Two bad entries: the first (position 2) is named.
    Tensor idx = FromVector<int64_t>({0, 2, bad, 1, 7, 2}, {6});
    Tensor ig = idx.To(kGpu);
    const std::string at2 = "index[2] = " + std::to_string(bad) + " is out of range";
    ExpectPoisonedAsCpu(ops::IndexSelect(wg, 0, ig), ops::IndexSelect(w, 0, idx),
                        "IndexSelect: " + at2 + " (valid: [0, 3))");
    Tensor src = Full({6, 2}, 1.0f, DType::kFloat32);
    ExpectPoisonedAsCpu(ops::IndexAdd(wg, 0, ig, src.To(kGpu)), ops::IndexAdd(w, 0, idx, src),
                        "IndexAdd: " + at2 + " (valid: [0, 3))");
    ExpectPoisonedAsCpu(ops::OneHot(ig, 3), ops::OneHot(idx, 3),
                        "OneHot: " + at2 + " (valid: [0, 3))");
    Tensor logits = RandomOf(rng_, {6, 3}, DType::kFloat32, 995, 1005);
    ExpectPoisonedAsCpu(ops::CrossEntropy(logits.To(kGpu), ig), ops::CrossEntropy(logits, idx),
                        "CrossEntropy: labels[2] = " + std::to_string(bad) +
                            " is out of range for 3 classes (valid: [0, 3))");
  }
  // A table with empty rows still checks its indices, as the CPU does.
  Tensor e = Zeros({3, 0}, DType::kFloat32);
  Tensor idx = FromVector<int64_t>({5}, {1});
  ExpectPoisonedAsCpu(ops::IndexSelect(e.To(kGpu), 0, idx.To(kGpu)), ops::IndexSelect(e, 0, idx),
                      "index[0] = 5");
  ExpectPoisonedAsCpu(ops::OneHot(idx.To(kGpu), 0), ops::OneHot(idx, 0), "index[0] = 5");
  EXPECT_TRUE(Sync().ok());
}

// What is computed from a poisoned result carries its error, and the device
// keeps working: the next calls with good indices give the CPU's values.
TEST_F(CudaIndexOps, ThePoisonReachesDependentsAndTheDeviceKeepsWorking) {
  Tensor table = RandomOf(rng_, {5, 4}, DType::kFloat32);
  Tensor tg = table.To(kGpu);
  Tensor bad = FromVector<int64_t>({1, 9}, {2}, kGpu);
  Tensor h = ops::IndexSelect(tg, 0, bad);
  Tensor y = ops::Relu(ops::MulScalar(h, 2.0) + 1.0f);
  Tensor loss = ops::Sum(y);
  absl::Status s = loss.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("IndexSelect: index[1] = 9 is out of range (valid: [0, 5))"),
            std::string::npos)
      << s;
  EXPECT_FALSE(h.Wait().ok());
  (void)Sync();
  Tensor good = FromVector<int64_t>({4, 0, 4}, {3});
  for (int i = 0; i < 3; ++i) {
    ExpectSame(ops::IndexSelect(tg, 0, good.To(kGpu)), ops::IndexSelect(table, 0, good),
               "after the error");
  }
  EXPECT_TRUE(Sync().ok());
}

// Graph mode: the index check cannot be recorded in a CUDA graph; the
// segment runs its kernels one by one instead, with eager's values, and a
// bad index fails that run's outputs as in eager mode.
TEST_F(CudaIndexOps, AGraphWithIndexOpsRunsAndChecksItsIndices) {
  Tensor table = RandomOf(rng_, {6, 3}, DType::kFloat32);
  Tensor tg = table.To(kGpu);
  auto fn = [&](const std::vector<Tensor>& in) {
    Tensor e = ops::IndexSelect(tg, 0, in[0]);
    return std::vector<Tensor>{ops::MulScalar(e, 3.0), ops::OneHot(in[0], 6)};
  };
  GraphOptions options;
  options.device_graphs = true;
  absl::StatusOr<Graph> g = Graph::Capture({TensorMeta{{4}, DType::kInt64, kGpu}}, fn, options);
  ASSERT_TRUE(g.ok()) << g.status();
  for (int r = 0; r < 6; ++r) {
    Tensor idx = Indices(rng_, {4}, 6);
    absl::StatusOr<std::vector<Tensor>> out = g->Run({idx.To(kGpu)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectSame((*out)[0], ops::MulScalar(ops::IndexSelect(table, 0, idx), 3.0),
               "run " + std::to_string(r));
    ExpectSame((*out)[1], ops::OneHot(idx, 6), "run " + std::to_string(r));
  }
  absl::StatusOr<std::vector<Tensor>> out = g->Run({FromVector<int64_t>({0, 1, 6, 2}, {4}, kGpu)});
  if (out.ok()) {
    absl::Status s = (*out)[0].Wait();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("index[2] = 6 is out of range (valid: [0, 6))"), std::string::npos)
        << s;
  } else {
    EXPECT_NE(out.status().message().find("index[2] = 6"), std::string::npos) << out.status();
  }
  (void)Sync();
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
