// The backend conformance suite's tests (backend_conformance.h).
#include "backend_conformance.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/instructions_builder.h"

namespace eagervm::conformance {

using vm::AccessMode;

absl::Status HostSlowFill(KernelContext& ctx) {
  std::this_thread::sleep_for(std::chrono::milliseconds(kSlowMs));
  float* x = ctx.mutable_input<float>(0);
  if (x == nullptr) return absl::InvalidArgumentError("ConfSlowFill: float32 only");
  const float value = static_cast<float>(std::get<double>(ctx.attrs().at("value")));
  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) x[i] = value;
  return absl::OkStatus();
}

absl::Status HostSlowCopy(KernelContext& ctx) {
  std::this_thread::sleep_for(std::chrono::milliseconds(kSlowMs));
  const float* x = ctx.input<float>(0);
  float* y = ctx.output<float>(0);
  if (x == nullptr || y == nullptr) return absl::InvalidArgumentError("ConfSlowCopy: float32 only");
  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) y[i] = x[i];
  return absl::OkStatus();
}

absl::Status FailingKernel(KernelContext&) {
  return absl::InternalError("ConfFail fails on purpose");
}

void RegisterConformanceOps() {
  static const bool once = [] {
    auto same = [](const std::vector<TensorMeta>& in,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{in.at(0)};
    };
    auto none = [](const std::vector<TensorMeta>&,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{};
    };
    OpOptions mutating;
    mutating.mutated_inputs = {0};
    EXPECT_TRUE(RegisterOp("ConfSlowFill", none, mutating).ok());
    EXPECT_TRUE(RegisterOp("ConfSlowCopy", same).ok());
    EXPECT_TRUE(RegisterOp("ConfFail", same).ok());
    EXPECT_TRUE(RegisterKernel("ConfSlowFill", DeviceType::kCPU, HostSlowFill).ok());
    EXPECT_TRUE(RegisterKernel("ConfSlowCopy", DeviceType::kCPU, HostSlowCopy).ok());
    EXPECT_TRUE(RegisterKernel("ConfFail", DeviceType::kCPU, FailingKernel).ok());
    EXPECT_TRUE(RegisterOp("ConfCpuOnly", same).ok());
    EXPECT_TRUE(RegisterKernel("ConfCpuOnly", DeviceType::kCPU, HostSlowCopy).ok());
    RegisterDeviceTestKernels();
    return true;
  }();
  (void)once;
}

void BackendConformance::SetUp() {
  if (GetParam().needs_gpu && CudaDeviceCount() == 0) {
    GTEST_SKIP() << "needs a CUDA GPU: CudaDeviceCount() is 0";
  }
  RegisterConformanceOps();
}

std::vector<float> Floats(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.To(Device::Cpu()).ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>{};
}

std::vector<double> AsDoubles(const Tensor& t) {
  Tensor c = ops::Cast(t.To(Device::Cpu()), DType::kFloat64);
  absl::StatusOr<std::vector<double>> v = c.ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>{};
}

void ExpectNear(const Tensor& got, const Tensor& want, const std::string& what, double rel_tol) {
  ASSERT_TRUE(got.ok()) << what << ": " << got.status();
  ASSERT_TRUE(want.ok()) << what << ": " << want.status();
  EXPECT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(got.dtype(), want.dtype()) << what;
  std::vector<double> g = AsDoubles(got), w = AsDoubles(want);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    const double tol = rel_tol * std::max(1.0, std::fabs(w[i]));
    ASSERT_TRUE(std::fabs(g[i] - w[i]) <= tol || (std::isnan(g[i]) && std::isnan(w[i])))
        << what << " at " << i << ": got " << g[i] << ", want " << w[i];
  }
}

std::vector<float> RandomFloats(std::mt19937& rng, int64_t n, float lo, float hi) {
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = std::uniform_real_distribution<float>(lo, hi)(rng);
  return v;
}

Pair MakeInput(std::mt19937& rng, Shape shape, bool view, Device dev, float lo, float hi) {
  Shape big = shape;
  if (view) big[0] += 2;
  std::vector<float> v = RandomFloats(rng, big.numel(), lo, hi);
  Tensor cpu = FromVector<float>(v, big);
  Tensor d = FromVector<float>(v, big, dev);
  if (view) {
    cpu = cpu.Slice(1, shape[0] + 1);
    d = d.Slice(1, shape[0] + 1);
  }
  return {cpu, d};
}

std::vector<Variant> Variants(std::mt19937& rng, int64_t rows, int64_t cols, DType dtype,
                              Device dev, float lo, float hi) {
  auto make = [&](Shape base) {
    std::vector<float> v = RandomFloats(rng, base.numel(), lo, hi);
    Tensor cpu = ops::Cast(FromVector<float>(v, base), dtype);
    return Pair{cpu, cpu.To(dev)};
  };
  Pair c = make({rows, cols});
  Pair o = make({rows + 2, cols});
  Pair t = make({cols, rows});
  return {{"contiguous", c},
          {"offset view", {o.cpu.Slice(1, rows + 1), o.dev.Slice(1, rows + 1)}},
          {"strided", {t.cpu.T(), t.dev.T()}}};
}

Pair Labels(std::mt19937& rng, int64_t n, int64_t classes, Device dev) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t& x : v) x = std::uniform_int_distribution<int64_t>(0, classes - 1)(rng);
  Tensor cpu = FromVector<int64_t>(v, {n});
  return {cpu, cpu.To(dev)};
}

const NamedUnaryOps& NumericUnaryOps() {
  static const NamedUnaryOps* const list = new NamedUnaryOps{
      {"Neg", ops::Neg},
      {"Abs", ops::Abs},
      {"Relu", ops::Relu},
      {"AddScalar", [](const Tensor& x) { return ops::AddScalar(x, 3); }},
      {"MulScalar", [](const Tensor& x) { return ops::MulScalar(x, 2); }},
      {"Sum", [](const Tensor& x) { return ops::Sum(x); }},
      {"Sum0", [](const Tensor& x) { return ops::Sum(x, 0); }},
      {"Sum1", [](const Tensor& x) { return ops::Sum(x, 1, true); }},
      {"Max", [](const Tensor& x) { return ops::Max(x); }},
      {"Max1", [](const Tensor& x) { return ops::Max(x, 1); }},
      {"Contiguous", [](const Tensor& x) { return x.Contiguous(); }},
  };
  return *list;
}

const NamedBinaryOps& NumericBinaryOps() {
  static const NamedBinaryOps* const list = new NamedBinaryOps{
      {"Add", ops::Add},
      {"Sub", ops::Sub},
      {"Mul", ops::Mul},
      {"Maximum", ops::Maximum},
      {"Minimum", ops::Minimum},
      {"Eq", ops::Eq},
      {"Ne", ops::Ne},
      {"Lt", ops::Lt},
      {"Le", ops::Le},
      {"Gt", ops::Gt},
      {"Ge", ops::Ge},
      {"Where", [](const Tensor& a, const Tensor& b) { return ops::Where(ops::Gt(a, b), a, b); }},
  };
  return *list;
}

bool Lacking::operator()(const Tensor& t, const std::string& op) {
  if (t.ok() || t.status().code() != absl::StatusCode::kUnimplemented) return false;
  ops_.emplace(op, t.status().ToString());
  return true;
}

std::string Lacking::ToString() const {
  std::string out;
  for (const auto& [op, why] : ops_) out += (out.empty() ? "" : "; ") + op + " (" + why + ")";
  return out;
}

void Check(Lacking& lacking, const std::string& op, const std::string& how, const Tensor& got,
           const Tensor& want, double rel_tol) {
  if (lacking(got, op)) return;
  ExpectNear(got, want, op + how, rel_tol);
}

absl::Status Access(const Tensor& t, AccessMode mode, std::function<void(void*, size_t)> cb) {
  return vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
    return b->AccessBlobByCallback(t, cb, mode);
  });
}

// Every built-in op on contiguous and view inputs equals the CPU's result.
TEST_P(BackendConformance, EveryOpMatchesTheCpuOnContiguousAndViewInputs) {
  std::mt19937 rng(7);
  using Unary = std::function<Tensor(const Tensor&)>;
  using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
  const std::vector<std::pair<std::string, Unary>> unary = {
      {"Relu", ops::Relu},
      {"Neg", ops::Neg},
      {"Exp", ops::Exp},
      {"Sigmoid", ops::Sigmoid},
      {"Tanh", ops::Tanh},
      {"AddScalar", [](const Tensor& x) { return ops::AddScalar(x, 1.5); }},
      {"SubScalar", [](const Tensor& x) { return ops::SubScalar(x, 0.25); }},
      {"MulScalar", [](const Tensor& x) { return ops::MulScalar(x, -3.0); }},
      {"DivScalar", [](const Tensor& x) { return ops::DivScalar(x, 4.0); }},
      {"Sum", [](const Tensor& x) { return ops::Sum(x); }},
      {"Sum0", [](const Tensor& x) { return ops::Sum(x, 0); }},
      {"Sum1", [](const Tensor& x) { return ops::Sum(x, 1, true); }},
      {"Mean", [](const Tensor& x) { return ops::Mean(x); }},
      {"Mean1", [](const Tensor& x) { return ops::Mean(x, 1); }},
      {"Max", [](const Tensor& x) { return ops::Max(x); }},
      {"Max0", [](const Tensor& x) { return ops::Max(x, 0); }},
      {"Transpose", ops::Transpose},
      {"CastF64", [](const Tensor& x) { return ops::Cast(x, DType::kFloat64); }},
      {"CastI32", [](const Tensor& x) { return ops::Cast(x, DType::kInt32); }},
      {"MatMulT", [](const Tensor& x) { return ops::MatMul(x, ops::Transpose(x)); }},
      {"CopyTo", [](const Tensor& x) { return x.To(x.device()); }},
  };
  const std::vector<std::pair<std::string, Binary>> binary = {
      {"Add", ops::Add},
      {"Sub", ops::Sub},
      {"Mul", ops::Mul},
      {"Div", ops::Div},
      {"Maximum", ops::Maximum},
      {"AddRow", [](const Tensor& a, const Tensor& b) { return ops::Add(a, b.Slice(0, 1)); }},
  };
  for (bool view : {false, true}) {
    const std::string how = view ? " (views)" : " (contiguous)";
    Pair a = MakeInput(rng, {6, 5}, view, dev());
    Pair b = MakeInput(rng, {6, 5}, view, dev(), 0.5f, 3.0f);  // no zero divisors
    Pair pos = MakeInput(rng, {6, 5}, view, dev(), 0.1f, 4.0f);
    for (const auto& [name, f] : unary) ExpectNear(f(a.dev), f(a.cpu), name + how);
    ExpectNear(ops::Sqrt(pos.dev), ops::Sqrt(pos.cpu), "Sqrt" + how);
    ExpectNear(ops::Log(pos.dev), ops::Log(pos.cpu), "Log" + how);
    for (const auto& [name, f] : binary) ExpectNear(f(a.dev, b.dev), f(a.cpu, b.cpu), name + how);
    // Integers: Add, Sum, MatMul.
    Tensor ai = ops::Cast(ops::MulScalar(a.cpu, 10.0), DType::kInt32);
    Tensor ai_dev = ai.To(dev());
    ExpectNear(ops::Add(ai_dev, ai_dev), ops::Add(ai, ai), "Add int32" + how);
    ExpectNear(ops::Sum(ai_dev, 1), ops::Sum(ai, 1), "Sum int32" + how);
    ExpectNear(ops::MatMul(ai_dev, ops::Transpose(ai_dev)), ops::MatMul(ai, ops::Transpose(ai)),
               "MatMul int32" + how);
    // In place, on a view of a larger storage too.
    Pair s = MakeInput(rng, {6, 5}, view, dev());
    ASSERT_TRUE(ops::AddInplace(s.dev, b.dev).ok());
    ASSERT_TRUE(ops::AddInplace(s.cpu, b.cpu).ok());
    ASSERT_TRUE(ops::MulScalarInplace(s.dev, 2.0).ok());
    ASSERT_TRUE(ops::MulScalarInplace(s.cpu, 2.0).ok());
    ExpectNear(s.dev, s.cpu, "AddInplace, MulScalarInplace" + how);
    ASSERT_TRUE(ops::FillInplace(s.dev.Slice(2, 3), 9.0).ok());
    ASSERT_TRUE(ops::FillInplace(s.cpu.Slice(2, 3), 9.0).ok());
    ExpectNear(s.dev, s.cpu, "FillInplace of a row" + how);
    ASSERT_TRUE(ops::CopyInto(s.dev.Slice(0, 2), a.dev.Slice(4, 6)).ok());
    ASSERT_TRUE(ops::CopyInto(s.cpu.Slice(0, 2), a.cpu.Slice(4, 6)).ok());
    ExpectNear(s.dev, s.cpu, "CopyInto rows" + how);
  }
  ASSERT_TRUE(Sync().ok());
}

// Host to device, device to host (fresh and into existing memory), device
// to device, and views on either side.
TEST_P(BackendConformance, CopiesInEveryDirection) {
  std::vector<float> v(300);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f;
  Tensor cpu = FromVector<float>(v, {300});
  Tensor d = cpu.To(dev());  // H2D
  EXPECT_EQ(Floats(d), v);   // D2H, fresh
  Tensor d2 = d.To(dev());   // on the device
  EXPECT_EQ(Floats(d2), v);
  Tensor host = Zeros({300}, DType::kFloat32);
  ASSERT_TRUE(ops::CopyInto(host, d2).ok());  // D2H into existing memory
  EXPECT_EQ(Floats(host), v);
  Tensor d3 = Zeros({300}, DType::kFloat32, dev());
  ASSERT_TRUE(ops::CopyInto(d3, cpu).ok());                              // H2D into existing memory
  ASSERT_TRUE(ops::CopyInto(d3.Slice(0, 100), d.Slice(200, 300)).ok());  // views, on device
  ASSERT_TRUE(ops::CopyInto(host.Slice(100, 200), d3.Slice(0, 100)).ok());  // view D2H
  std::vector<float> want_d3 = v, want_host = v;
  for (int i = 0; i < 100; ++i) want_d3[i] = v[200 + i];
  for (int i = 0; i < 100; ++i) want_host[100 + i] = v[200 + i];
  EXPECT_EQ(Floats(d3), want_d3);
  EXPECT_EQ(Floats(host), want_host);
  EXPECT_EQ(Floats(d3.Slice(10, 20).To(Device::Cpu())),
            std::vector<float>(want_d3.begin() + 10, want_d3.begin() + 20));
  ASSERT_TRUE(Sync().ok());
}

// FromVector, Item, ToVector, and users' read and write callbacks.
TEST_P(BackendConformance, HostReadsAndWrites) {
  Tensor d = FromVector<float>({1, 2, 3, 4}, {4}, dev());
  absl::StatusOr<float> item = d.Slice(3, 4).Reshape({}).Item<float>();
  ASSERT_TRUE(item.ok()) << item.status();
  EXPECT_EQ(*item, 4.0f);
  std::vector<float> seen;
  ASSERT_TRUE(Access(d, AccessMode::kRead, [&](void* p, size_t n) {
                seen.assign(static_cast<float*>(p), static_cast<float*>(p) + n / sizeof(float));
              }).ok());
  ASSERT_TRUE(Access(d.Slice(1, 3), AccessMode::kWrite, [](void* p, size_t n) {
                for (size_t i = 0; i < n / sizeof(float); ++i) static_cast<float*>(p)[i] *= 10;
              }).ok());
  ASSERT_TRUE(ops::AddInplace(d, Full({4}, 1.0f, DType::kFloat32, dev())).ok());
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(seen, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(Floats(d), (std::vector<float>{2, 21, 31, 5}));
}

// Read after write across streams: the reader on stream 1 is queued while a
// slow writer on stream 0 still runs, and sees its values.
TEST_P(BackendConformance, CrossStreamReadAfterWrite) {
  Tensor x = Zeros({4096}, DType::kFloat32, dev());
  ASSERT_TRUE(ops::Call("ConfSlowFill", {x}, {{"value", 7.0}}).ok());
  Tensor y;
  {
    StreamScope scope(Stream(dev(), 1));
    y = ops::AddScalar(x, 1.0);
  }
  std::vector<float> got = Floats(y);
  ASSERT_EQ(got.size(), 4096u);
  for (size_t i = 0; i < got.size(); i += 97) ASSERT_EQ(got[i], 8.0f) << "at " << i;
}

// Write after read: a slow reader on stream 0, then a write of what it reads
// on stream 1: the reader sees the old values.
TEST_P(BackendConformance, CrossStreamWriteAfterRead) {
  Tensor x = Full({4096}, 3.0f, DType::kFloat32, dev());
  ASSERT_TRUE(x.Wait().ok());
  absl::StatusOr<TensorList> y = ops::Call("ConfSlowCopy", {x});
  ASSERT_TRUE(y.ok()) << y.status();
  {
    StreamScope scope(Stream(dev(), 1));
    ASSERT_TRUE(ops::FillInplace(x, 5.0).ok());
  }
  std::vector<float> got = Floats((*y)[0]);
  ASSERT_EQ(got.size(), 4096u);
  for (size_t i = 0; i < got.size(); i += 97) ASSERT_EQ(got[i], 3.0f) << "at " << i;
  EXPECT_EQ(Floats(x)[4095], 5.0f);
}

// Write after write: a slow fill on stream 0, a fast one on stream 1: the
// second wins.
TEST_P(BackendConformance, CrossStreamWriteAfterWrite) {
  Tensor x = Zeros({4096}, DType::kFloat32, dev());
  ASSERT_TRUE(ops::Call("ConfSlowFill", {x}, {{"value", 1.0}}).ok());
  {
    StreamScope scope(Stream(dev(), 1));
    ASSERT_TRUE(ops::FillInplace(x, 2.0).ok());
  }
  std::vector<float> got = Floats(x);
  ASSERT_EQ(got.size(), 4096u);
  for (size_t i = 0; i < got.size(); i += 97) ASSERT_EQ(got[i], 2.0f) << "at " << i;
}

// Three streams: a slow writer (0), a reader (1), a later writer (2).
TEST_P(BackendConformance, ThreeStreamsWriteReadWrite) {
  Tensor x = Zeros({4096}, DType::kFloat32, dev());
  ASSERT_TRUE(ops::Call("ConfSlowFill", {x}, {{"value", 4.0}}).ok());
  Tensor y;
  {
    StreamScope scope(Stream(dev(), 1));
    y = ops::MulScalar(x, 2.0);
  }
  {
    StreamScope scope(Stream(dev(), 2));
    ASSERT_TRUE(ops::FillInplace(x, -1.0).ok());
  }
  EXPECT_EQ(Floats(y)[4000], 8.0f);
  EXPECT_EQ(Floats(x)[4000], -1.0f);
}

// A tensor dropped while another stream still reads it slowly: its memory
// must not be reused (or poisoned) before the reader finished.
TEST_P(BackendConformance, ADroppedTensorOutlivesItsSlowReaderOnAnotherStream) {
  Tensor y;
  {
    Tensor x = Full({4096}, 6.0f, DType::kFloat32, dev());
    ASSERT_TRUE(x.Wait().ok());
    StreamScope scope(Stream(dev(), 1));
    absl::StatusOr<TensorList> out = ops::Call("ConfSlowCopy", {x});
    ASSERT_TRUE(out.ok()) << out.status();
    y = (*out)[0];
  }                                                        // x dropped: released behind its reader
  Tensor z = Full({4096}, -6.0f, DType::kFloat32, dev());  // same size: may reuse x's block
  std::vector<float> got = Floats(y);
  ASSERT_EQ(got.size(), 4096u);
  for (size_t i = 0; i < got.size(); i += 97) ASSERT_EQ(got[i], 6.0f) << "at " << i;
  EXPECT_EQ(Floats(z)[0], -6.0f);
}

// A failing kernel poisons exactly its outputs; its inputs, other tensors
// and later work on the device are unaffected.
TEST_P(BackendConformance, AFailingKernelPoisonsExactlyItsOutputs) {
  Tensor x = Full({64}, 2.0f, DType::kFloat32, dev());
  Tensor other = Full({64}, 3.0f, DType::kFloat32, dev());
  absl::StatusOr<TensorList> y = ops::Call("ConfFail", {x});
  ASSERT_TRUE(y.ok()) << y.status();        // queued: the kernel fails later
  Tensor z = ops::AddScalar((*y)[0], 1.0);  // forwards the error
  absl::Status s = (*y)[0].Wait();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ConfFail fails on purpose"), std::string::npos) << s;
  EXPECT_FALSE(z.Wait().ok());
  EXPECT_FALSE(z.To(Device::Cpu()).ToVector<float>().ok());
  EXPECT_EQ(Floats(x)[63], 2.0f);
  EXPECT_EQ(Floats(other)[0], 3.0f);
  EXPECT_EQ(Floats(ops::Add(x, other))[10], 5.0f);  // the device stays usable
  EXPECT_TRUE(Sync().ok());                         // the error was reported by Wait()
}

// Graph mode: capture once, replay with new inputs; equal to eager.
TEST_P(BackendConformance, GraphReplayEqualsEager) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor h = ops::Relu(ops::AddScalar(in[0], 1.0));
    return std::vector<Tensor>{ops::Mul(h, in[1]), ops::Sum(h, 1)};
  };
  const TensorMeta meta{{4, 8}, DType::kFloat32, dev()};
  absl::StatusOr<Graph> g = Graph::Capture({meta, meta}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  std::mt19937 rng(3);
  for (int r = 0; r < 4; ++r) {
    Pair a = MakeInput(rng, {4, 8}, false, dev());
    Pair b = MakeInput(rng, {4, 8}, false, dev());
    absl::StatusOr<std::vector<Tensor>> got = g->Run({a.dev, b.dev});
    ASSERT_TRUE(got.ok()) << got.status();
    std::vector<Tensor> want = fn({a.cpu, b.cpu});
    ASSERT_EQ(got->size(), 2u);
    ExpectNear((*got)[0], want[0], "graph output 0, run " + std::to_string(r));
    ExpectNear((*got)[1], want[1], "graph output 1, run " + std::to_string(r));
  }
  EXPECT_EQ(g->GetStats().runs, 4);
}

// Overlapping views of one storage: the input is read as it was before the
// op, on every device (ops/overlap.h).
TEST_P(BackendConformance, OverlappingCopyIntoAndInPlaceAddReadTheOldValues) {
  const int n = 257;
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  Tensor x = FromVector<float>(v, {n}, dev());
  ASSERT_TRUE(ops::CopyInto(x.Slice(0, n - 1), x.Slice(1, n)).ok());
  std::vector<float> want = v;
  for (int i = 0; i + 1 < n; ++i) want[i] = v[i + 1];
  EXPECT_EQ(Floats(x), want);
  Tensor y = FromVector<float>(v, {n}, dev());
  ASSERT_TRUE(ops::CopyInto(y.Slice(1, n), y.Slice(0, n - 1)).ok());
  want = v;
  for (int i = 1; i < n; ++i) want[i] = v[i - 1];
  EXPECT_EQ(Floats(y), want);
  std::vector<float> m(12);
  for (int i = 0; i < 12; ++i) m[i] = static_cast<float>(i);
  Tensor z = FromVector<float>(m, {3, 4}, dev());
  ASSERT_TRUE(ops::AddInplace(z, z.Slice(0, 1)).ok());
  std::vector<float> want_z = m;
  for (int i = 0; i < 12; ++i) want_z[i] = m[i] + m[i % 4];
  EXPECT_EQ(Floats(z), want_z);
}

}  // namespace eagervm::conformance

namespace eagervm::conformance {

// Strided views (T, Permute, Slice on an inner axis, Expand) read by every
// op class and written through, equal to the CPU. On devices whose kernels
// need compact input this exercises the device's strided copy kernels.
TEST_P(BackendConformance, StridedViewsReadAndWrittenEqualTheCpu) {
  std::mt19937 rng(30);
  Pair a = MakeInput(rng, {6, 5}, false, dev());
  Pair b = MakeInput(rng, {5, 6}, false, dev(), 0.5f, 3.0f);
  Pair r = MakeInput(rng, {1, 5}, false, dev());
  using View = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<std::string, View>> views = {
      {"T", [](const Tensor& x) { return x.T(); }},
      {"Slice(1,1,4)", [](const Tensor& x) { return x.Slice(1, 1, 4); }},
      {"Permute.Slice",
       [](const Tensor& x) {
         return x.Permute({1, 0}).Slice(1, 2, 5);
       }},
  };
  for (const auto& [name, view] : views) {
    Tensor vd = view(a.dev), vc = view(a.cpu);
    ASSERT_FALSE(vd.is_contiguous()) << name;
    ExpectNear(vd, vc, name + " values");
    ExpectNear(vd.Contiguous(), vc.Contiguous(), name + " Contiguous");
    ExpectNear(ops::Exp(vd), ops::Exp(vc), name + " Exp");
    ExpectNear(ops::Add(vd, vd), ops::Add(vc, vc), name + " Add");
    ExpectNear(ops::MulScalar(vd, 3.0), ops::MulScalar(vc, 3.0), name + " MulScalar");
    ExpectNear(ops::Sum(vd, 0), ops::Sum(vc, 0), name + " Sum0");
    ExpectNear(ops::Max(vd, 1), ops::Max(vc, 1), name + " Max1");
    ExpectNear(ops::Cast(vd, DType::kFloat64), ops::Cast(vc, DType::kFloat64), name + " Cast");
    ExpectNear(ops::MatMul(vd, vd.T()), ops::MatMul(vc, vc.T()), name + " MatMul");
    ExpectNear(vd.To(Device::Cpu()), vc, name + " To(cpu)");
    // Writes through the view reach exactly its elements of the base.
    Pair s = MakeInput(rng, {6, 5}, false, dev());
    Tensor sd = view(s.dev), sc = view(s.cpu);
    ASSERT_TRUE(ops::AddInplace(sd, ops::Exp(vd)).ok()) << name;
    ASSERT_TRUE(ops::AddInplace(sc, ops::Exp(vc)).ok()) << name;
    ASSERT_TRUE(ops::MulScalarInplace(sd, -2.0).ok()) << name;
    ASSERT_TRUE(ops::MulScalarInplace(sc, -2.0).ok()) << name;
    ExpectNear(s.dev, s.cpu, name + " AddInplace, MulScalarInplace through the view");
    ASSERT_TRUE(ops::CopyInto(sd, vd).ok()) << name;
    ASSERT_TRUE(ops::CopyInto(sc, vc).ok()) << name;
    ExpectNear(s.dev, s.cpu, name + " CopyInto the view");
  }
  // An Expand view read (broadcast), and refused as a destination.
  Tensor ed = r.dev.Expand({4, 6, 5}), ec = r.cpu.Expand({4, 6, 5});
  ExpectNear(ops::Mul(ed, a.dev), ops::Mul(ec, a.cpu), "Expand Mul");
  ExpectNear(ops::Sum(ed, 0), ops::Sum(ec, 0), "Expand Sum0");
  EXPECT_EQ(ops::FillInplace(ed, 1.0).code(), absl::StatusCode::kInvalidArgument);
  // A transposed operand on both sides of a MatMul.
  ExpectNear(ops::MatMul(b.dev.T(), a.dev.T()), ops::MatMul(b.cpu.T(), a.cpu.T()), "MatMul T T");
  ASSERT_TRUE(Sync().ok());
}

}  // namespace eagervm::conformance
