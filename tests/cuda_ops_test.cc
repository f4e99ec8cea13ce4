// Every CUDA op against the CPU op on the same inputs (needs a GPU; skips
// otherwise). Inputs are made on the CPU and moved with To(), so the copies
// are exercised by every case as well.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

#ifdef EAGERVM_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace eagervm {
namespace {

using testing_cuda::ExpectSameValues;
using testing_cuda::Host;
using testing_cuda::kGpu;
using testing_cuda::RandomValues;

class CudaOps : public ::testing::Test {
 protected:
  void SetUp() override { EAGERVM_REQUIRE_CUDA(); }
  std::mt19937_64 rng_{1234};
};

// f(inputs...) on the CPU vs on the GPU, compared on the host.
template <typename T, typename F>
void Differential(F f, std::vector<Tensor> cpu_inputs, double rtol = 1e-5) {
  std::vector<Tensor> gpu_inputs;
  for (const Tensor& t : cpu_inputs) gpu_inputs.push_back(t.To(kGpu));
  Tensor expected = f(cpu_inputs);
  Tensor actual = f(gpu_inputs);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(actual.device(), kGpu);
  ExpectSameValues<T>(expected, actual.To(Device::Cpu()), rtol);
}

TEST_F(CudaOps, RoundTripEveryDtypeAndSize) {
  for (int64_t n : {0, 1, 7, 1000, 1 << 20}) {
    auto f = RandomValues<float>(n, rng_);
    auto i = RandomValues<int64_t>(n, rng_, -1e9, 1e9);
    auto b = RandomValues<bool>(n, rng_);
    Tensor tf = Host(f, {n}), ti = Host(i, {n}), tb = Host(b, {n});
    ExpectSameValues<float>(tf, tf.To(kGpu).To(Device::Cpu()));
    ExpectSameValues<int64_t>(ti, ti.To(kGpu));  // ToVector of a CUDA tensor directly
    ExpectSameValues<bool>(tb, tb.To(kGpu).To(Device::Cpu()));
  }
  EXPECT_TRUE(Sync().ok());
}

TEST_F(CudaOps, FromVectorItemWaitAndViewsOnTheDevice) {
  std::vector<double> v = {1.5, -2, 3, 4, 5, 6};
  Tensor t = FromVector<double>(absl::MakeConstSpan(v), {3, 2}, kGpu);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t.Wait().ok());
  EXPECT_EQ(*t.Slice(1, 2).Reshape({2}).ToVector<double>(), (std::vector<double>{3, 4}));
  EXPECT_EQ(*t.Reshape({6}).Slice(0, 1).Reshape({}).Item<double>(), 1.5);
  Tensor row = t.Slice(2, 3).To(Device::Cpu());
  EXPECT_EQ(*row.ToVector<double>(), (std::vector<double>{5, 6}));
}

TEST_F(CudaOps, FullFillAndCopyInto) {
  for (DType d : {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
    Tensor c = Full({5, 3}, 1, d), g = Full({5, 3}, 1, d, kGpu);
    ASSERT_TRUE(ops::FillInplace(c, 0).ok());
    ASSERT_TRUE(ops::FillInplace(g, 0).ok());
    if (d == DType::kFloat32) ExpectSameValues<float>(c, g);
    if (d == DType::kInt32) ExpectSameValues<int32_t>(c, g);
  }
  auto v = RandomValues<float>(100, rng_);
  Tensor src = Host(v, {10, 10});
  Tensor gpu = Zeros({10, 10}, DType::kFloat32, kGpu);
  ASSERT_TRUE(ops::CopyInto(gpu, src).ok());  // H2D from pageable memory
  Tensor back = Zeros({10, 10}, DType::kFloat32);
  ASSERT_TRUE(ops::CopyInto(back, gpu).ok());  // D2H into pageable memory
  Tensor gpu2 = Zeros({10, 10}, DType::kFloat32, kGpu);
  ASSERT_TRUE(ops::CopyInto(gpu2, gpu).ok());  // on the device
  ExpectSameValues<float>(src, back);
  ExpectSameValues<float>(src, gpu2);
}

TEST_F(CudaOps, BinaryOpsWithBroadcasting) {
  const std::vector<std::pair<Shape, Shape>> shapes = {{{4, 5}, {4, 5}},    {{4, 5}, {5}},
                                                       {{4, 1, 3}, {2, 1}}, {{}, {3, 2}},
                                                       {{6, 1}, {1, 7}},    {{0, 3}, {3}}};
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  for (Fn op : {+[](const Tensor&a, const Tensor&b) { return ops::Add(a, b); },
                +[](const Tensor&a, const Tensor&b) { return ops::Sub(a, b); },
                +[](const Tensor&a, const Tensor&b) { return ops::Mul(a, b); },
                +[](const Tensor&a, const Tensor&b) { return ops::Maximum(a, b); }}) {
    for (const auto& [sa, sb] : shapes) {
      Differential<float>([&](const std::vector<Tensor>& in) { return op(in[0], in[1]); },
                          {Host(RandomValues<float>(sa.numel(), rng_), sa),
                           Host(RandomValues<float>(sb.numel(), rng_), sb)});
      Differential<int64_t>([&](const std::vector<Tensor>& in) { return op(in[0], in[1]); },
                            {Host(RandomValues<int64_t>(sa.numel(), rng_), sa),
                             Host(RandomValues<int64_t>(sb.numel(), rng_), sb)});
    }
  }
  // Div: divisors away from zero (integer x / 0 differs: an error on the CPU).
  Differential<double>([](const std::vector<Tensor>& in) { return ops::Div(in[0], in[1]); },
                       {Host(RandomValues<double>(12, rng_), {3, 4}),
                        Host(RandomValues<double>(4, rng_, 1, 3), {4})});
  Differential<int32_t>([](const std::vector<Tensor>& in) { return ops::Div(in[0], in[1]); },
                        {Host(RandomValues<int32_t>(12, rng_, -100, 100), {3, 4}),
                         Host(std::vector<int32_t>{-3, -1, 2, 7}, {4})});
}

TEST_F(CudaOps, InplaceAndScalarOps) {
  auto run = [&](auto&& f, DType) {
    Tensor c = Host(RandomValues<float>(24, rng_), {4, 6});
    Tensor g = c.To(kGpu);
    Tensor other = Host(RandomValues<float>(6, rng_), {6});
    ASSERT_TRUE(f(c, other).ok());
    ASSERT_TRUE(f(g, other.To(kGpu)).ok());
    ExpectSameValues<float>(c, g);
  };
  run([](const Tensor& s, const Tensor& o) { return ops::AddInplace(s, o); }, DType::kFloat32);
  run([](const Tensor& s, const Tensor&) { return ops::MulScalarInplace(s, -2.5); },
      DType::kFloat32);
  Tensor x = Host(RandomValues<int32_t>(50, rng_, -50, 50), {50});
  for (auto f : {+[](const Tensor& t) { return ops::AddScalar(t, 3); },
                 +[](const Tensor& t) { return ops::SubScalar(t, 3); },
                 +[](const Tensor& t) { return ops::MulScalar(t, -4); },
                 +[](const Tensor& t) { return ops::DivScalar(t, 3); }}) {
    Differential<int32_t>([&](const std::vector<Tensor>& in) { return f(in[0]); }, {x});
  }
}

TEST_F(CudaOps, UnaryOps) {
  Tensor pos = Host(RandomValues<double>(300, rng_, 0.01, 5), {300});
  Tensor any = Host(RandomValues<double>(300, rng_, -6, 6), {10, 30});
  using Fn = Tensor (*)(const Tensor&);
  for (Fn f :
       {+[](const Tensor& t) { return ops::Relu(t); }, +[](const Tensor& t) { return ops::Neg(t); },
        +[](const Tensor& t) { return ops::Exp(t); },
        +[](const Tensor& t) { return ops::Sigmoid(t); },
        +[](const Tensor& t) { return ops::Tanh(t); }}) {
    Differential<double>([&](const std::vector<Tensor>& in) { return f(in[0]); }, {any}, 1e-12);
  }
  for (Fn f : {+[](const Tensor& t) { return ops::Log(t); },
               +[](const Tensor& t) { return ops::Sqrt(t); }}) {
    Differential<double>([&](const std::vector<Tensor>& in) { return f(in[0]); }, {pos}, 1e-12);
  }
  Tensor ints = Host(RandomValues<int64_t>(64, rng_, -9, 9), {64});
  Differential<int64_t>([](const std::vector<Tensor>& in) { return ops::Relu(in[0]); }, {ints});
  Differential<int64_t>([](const std::vector<Tensor>& in) { return ops::Neg(in[0]); }, {ints});
}

TEST_F(CudaOps, Reductions) {
  for (Shape s : {Shape{1000003}, Shape{3, 5, 7}, Shape{64, 4096}, Shape{0, 4}, Shape{}}) {
    Tensor f = Host(RandomValues<float>(s.numel(), rng_), s);
    Tensor i = Host(RandomValues<int32_t>(s.numel(), rng_, -100, 100), s);
    Differential<float>([](const std::vector<Tensor>& in) { return ops::Sum(in[0]); }, {f}, 1e-4);
    Differential<float>([](const std::vector<Tensor>& in) { return ops::Mean(in[0]); }, {f}, 1e-4);
    Differential<int32_t>([](const std::vector<Tensor>& in) { return ops::Sum(in[0]); }, {i});
    if (s.numel() > 0)
      Differential<int32_t>([](const std::vector<Tensor>& in) { return ops::Max(in[0]); }, {i});
    for (int axis = 0; axis < s.rank(); ++axis) {
      for (bool keep : {false, true}) {
        Differential<float>(
            [&](const std::vector<Tensor>& in) { return ops::Sum(in[0], axis, keep); }, {f}, 1e-4);
        Differential<float>(
            [&](const std::vector<Tensor>& in) { return ops::Mean(in[0], axis, keep); }, {f}, 1e-4);
        if (s[axis] > 0) {
          Differential<float>(
              [&](const std::vector<Tensor>& in) { return ops::Max(in[0], axis, keep); }, {f});
        }
      }
    }
  }
}

TEST_F(CudaOps, CastBetweenEveryPairIncludingEdgeValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = {0, -0.5, 1.5, -2.7, 3e9, -3e9, 1e30, -1e30, nan, 42};
  Tensor src = Host(v, {10});
  for (DType from :
       {DType::kFloat64, DType::kFloat32, DType::kInt64, DType::kInt32, DType::kBool}) {
    Tensor c = ops::Cast(src, from), g = ops::Cast(src.To(kGpu), from);
    for (DType to :
         {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
      Tensor cc = ops::Cast(c, to), gc = ops::Cast(g, to);
      switch (to) {
        case DType::kBool:
          ExpectSameValues<bool>(cc, gc);
          break;
        case DType::kInt32:
          ExpectSameValues<int32_t>(cc, gc);
          break;
        case DType::kInt64:
          ExpectSameValues<int64_t>(cc, gc);
          break;
        case DType::kFloat32:
          ExpectSameValues<float>(cc, gc, 0);
          break;
        case DType::kFloat64:
          ExpectSameValues<double>(cc, gc, 0);
          break;
        default:  // uint8 and the 16-bit floats: cuda_dtypes_test.cc
          break;
      }
    }
  }
}

// Contiguous elementwise kernels move 16-byte packs when every pointer is
// aligned, else single elements; both, and the packs' tails, at every
// length around a pack and every misalignment a view's offset gives.
TEST_F(CudaOps, ElementwiseAtEveryTailLengthAndAlignment) {
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 1023, 4097}) {
    for (int64_t off : {0, 1, 2, 3}) {
      const int64_t m = n + 4;
      std::vector<Tensor> f32 = {Host(RandomValues<float>(m, rng_), {m}),
                                 Host(RandomValues<float>(m, rng_), {m})};
      Differential<float>(
          [&](const std::vector<Tensor>& in) {
            return ops::Add(in[0].Slice(off, off + n), in[1].Slice(4 - off, 4 - off + n));
          },
          f32, 0);
      Differential<float>(
          [&](const std::vector<Tensor>& in) {
            return ops::MulScalar(in[0].Slice(off, off + n), 3.0f);
          },
          f32, 0);
      Differential<float>(
          [&](const std::vector<Tensor>& in) { return ops::Exp(in[0].Slice(off, off + n)); }, f32,
          1e-6);
      Differential<double>(
          [&](const std::vector<Tensor>& in) {
            Tensor x = ops::Cast(in[0], DType::kFloat64).Contiguous();
            Tensor y = ops::Cast(in[1], DType::kFloat64);
            EXPECT_TRUE(ops::AddInplace(x.Slice(off, off + n), y.Slice(0, n)).ok());
            return x;  // the elements outside the view untouched
          },
          f32, 0);
    }
  }
}

TEST_F(CudaOps, RandomUniformMatchesTheCpuGenerator) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    Tensor c = ops::RandomUniform({4097}, dt, Device::Cpu(), 31, -1.0, 4.0);
    Tensor g = ops::RandomUniform({4097}, dt, kGpu, 31, -1.0, 4.0);
    ExpectSameValues<double>(ops::Cast(c, DType::kFloat64), ops::Cast(g, DType::kFloat64), 0);
  }
}

TEST_F(CudaOps, RandomNormalMatchesTheCpuGenerator) {
  for (int64_t n : {1, 2, 1001}) {
    Tensor c = RandomNormal({n}, DType::kFloat64, Device::Cpu(), 77);
    Tensor g = RandomNormal({n}, DType::kFloat64, kGpu, 77);
    ExpectSameValues<double>(c, g, 1e-12);  // same counter-based generator; libm may differ in ulps
  }
  Tensor g = RandomNormal({1 << 20}, DType::kFloat32, kGpu, 5);
  absl::StatusOr<float> mean = ops::Mean(g).Item<float>();
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_NEAR(*mean, 0.0f, 0.01f);
}

TEST_F(CudaOps, MatMulAndTranspose) {
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> sizes = {
      {1, 1, 1}, {17, 33, 9}, {128, 256, 64}, {3, 0, 4}};
  for (auto [m, k, n] : sizes) {
    Differential<float>([](const std::vector<Tensor>& in) { return ops::MatMul(in[0], in[1]); },
                        {Host(RandomValues<float>(m * k, rng_), {m, k}),
                         Host(RandomValues<float>(k * n, rng_), {k, n})},
                        1e-3);
    Differential<double>([](const std::vector<Tensor>& in) { return ops::MatMul(in[0], in[1]); },
                         {Host(RandomValues<double>(m * k, rng_), {m, k}),
                          Host(RandomValues<double>(k * n, rng_), {k, n})},
                         1e-10);
    Differential<int32_t>([](const std::vector<Tensor>& in) { return ops::MatMul(in[0], in[1]); },
                          {Host(RandomValues<int32_t>(m * k, rng_, -9, 9), {m, k}),
                           Host(RandomValues<int32_t>(k * n, rng_, -9, 9), {k, n})});
  }
  for (Shape s : {Shape{1, 1}, Shape{33, 65}, Shape{1000, 3}}) {
    Differential<float>([](const std::vector<Tensor>& in) { return ops::Transpose(in[0]); },
                        {Host(RandomValues<float>(s.numel(), rng_), s)});
    Differential<bool>([](const std::vector<Tensor>& in) { return ops::Transpose(in[0]); },
                       {Host(RandomValues<bool>(s.numel(), rng_), s)});
  }
}

// C4: more row tiles than gridDim.y allows (65535 x 32 = 2,097,120 rows).
TEST_F(CudaOps, TransposeOfMoreThanTwoMillionRows) {
  for (Shape s : {Shape{3'000'000, 2}, Shape{2, 3'000'000}}) {
    Differential<float>([](const std::vector<Tensor>& in) { return ops::Transpose(in[0]); },
                        {Host(RandomValues<float>(s.numel(), rng_), s)}, 0);
  }
  Shape b{3'000'000, 2};
  Differential<bool>([](const std::vector<Tensor>& in) { return ops::Transpose(in[0]); },
                     {Host(RandomValues<bool>(b.numel(), rng_), b)});
}

// Row counts past gridDim.y (65535), one long row past the chunk cap, and a
// tall column sum (one thread per output): exact integer sums.
TEST_F(CudaOps, ReductionsOverMoreThan65535Rows) {
  auto sum = [](int axis) {
    return [axis](const std::vector<Tensor>& in) { return ops::Sum(in[0], axis); };
  };
  Shape wide{70'000, 8}, tall{1'000'000, 3}, line{5'000'000};
  Differential<int32_t>(sum(1), {Host(RandomValues<int32_t>(wide.numel(), rng_, -9, 9), wide)});
  Differential<int32_t>(sum(0), {Host(RandomValues<int32_t>(tall.numel(), rng_, -9, 9), tall)});
  Differential<int32_t>(sum(0), {Host(RandomValues<int32_t>(line.numel(), rng_, -9, 9), line)});
  Differential<float>([](const std::vector<Tensor>& in) { return ops::Max(in[0], 1); },
                      {Host(RandomValues<float>(wide.numel(), rng_), wide)}, 0);
}

// L1: a write callback on a CUDA tensor sees the tensor's bytes (as on the
// CPU): a read-modify-write of part of the buffer keeps the rest.
TEST_F(CudaOps, AccessBlobByCallbackWriteSeesTheTensorsBytes) {
  std::vector<float> v = {1, 2, 3, 4};
  Tensor x = FromVector<float>(absl::MakeConstSpan(v), {4}, kGpu);
  std::vector<float> seen;
  absl::Status s = vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
    return b->AccessBlobByCallback(
        x,
        [&](void* data, size_t bytes) {
          float* f = static_cast<float*>(data);
          seen.assign(f, f + bytes / sizeof(float));
          f[0] = f[0] * 10 + 1;  // only the first two elements change
          f[1] = f[1] * 10 + 1;
        },
        vm::AccessMode::kWrite);
  });
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<std::vector<float>> after = x.ToVector<float>();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after, (std::vector<float>{11, 21, 3, 4}));
  EXPECT_EQ(seen, v);
  // A tensor nothing wrote yet: the callback fills it.
  Tensor e = Empty({3}, DType::kInt32, kGpu);
  s = vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
    return b->AccessBlobByCallback(
        e,
        [](void* data, size_t) {
          int32_t* p = static_cast<int32_t*>(data);
          p[0] = 7, p[1] = 8, p[2] = 9;
        },
        vm::AccessMode::kWrite);
  });
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<std::vector<int32_t>> filled = e.ToVector<int32_t>();
  ASSERT_TRUE(filled.ok()) << filled.status();
  EXPECT_EQ(*filled, (std::vector<int32_t>{7, 8, 9}));
}

// L4 on a CUDA tensor: rejected on this thread (Empty tensors: no memory).
TEST_F(CudaOps, MatMulRejectsDimensionsOfTwoToThe31) {
  const int64_t big = int64_t{1} << 31;
  Tensor c =
      ops::MatMul(Empty({1, big}, DType::kFloat32, kGpu), Empty({big, 1}, DType::kFloat32, kGpu));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << c.status();
  EXPECT_NE(c.status().message().find("MatMul"), absl::string_view::npos) << c.status();
}

// More than 2^31 elements (int64 index math): 2 GiB of bool, 17 GiB of int64.
TEST_F(CudaOps, TensorsOverTwoToThe31Elements) {
  const int64_t n = (int64_t{1} << 31) + 64;
  Tensor b = Full({n}, true, DType::kBool, kGpu);
  ASSERT_TRUE(b.Wait().ok());
  absl::StatusOr<bool> last = b.Slice(n - 1, n).Reshape({}).Item<bool>();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_TRUE(*last);
  absl::StatusOr<int64_t> total = ops::Sum(ops::Cast(b, DType::kInt64)).Item<int64_t>();
  ASSERT_TRUE(total.ok()) << total.status();
  EXPECT_EQ(*total, n);
  b = Tensor();
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
}

// Full-size reduction numerics: float64 Sum of 10^8 elements and float32
// Mean of 2^31+64 (8 GiB on the device), against analytic values (the host
// would need as much memory again for a CPU reference). A dropped or doubled
// chunk shows far beyond the bounds, and so does a float32 running sum: adding
// 0.75 stops changing it near 2^25, which would give a mean near 1/64.
TEST_F(CudaOps, FullSizeSumAndMeanNumerics) {
  {
    const int64_t n = 100'000'000;
    absl::StatusOr<double> s = ops::Sum(Full({n}, 0.1, DType::kFloat64, kGpu)).Item<double>();
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_NEAR(*s, 1e7, 1e7 * 1e-12);
  }
  {
    const int64_t n = (int64_t{1} << 31) + 64;
    absl::StatusOr<float> m = ops::Mean(Full({n}, 0.75f, DType::kFloat32, kGpu)).Item<float>();
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_NEAR(*m, 0.75f, 0.75f * 1e-5f);
  }
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
}

// The pinned staging pools show in GetStats() (as CPU memory) and
// EmptyCache() returns them.
TEST_F(CudaOps, PinnedPoolsAreCountedAndTrimmed) {
  constexpr int64_t kFloats = (64 << 20) / 4;
  Tensor g = Full({kFloats}, 1.0f, DType::kFloat32, kGpu);
  {
    // A 64 MiB pinned block from the pool, back in it once dropped. (A host
    // read of g would not do: g is finished, and such a read copies on its
    // own, outside the pool: StreamPolicy::ReadFinalToHost.)
    Tensor h = g.To(Device::Cpu());
    absl::StatusOr<float> last = h.Slice(kFloats - 1, kFloats).Reshape({}).Item<float>();
    ASSERT_TRUE(last.ok()) << last.status();
    ASSERT_EQ(*last, 1.0f);
  }
  ASSERT_TRUE(Sync().ok());
  auto cpu_reserved = [] {
    int64_t r = 0;
    for (const MemoryStats& m : VirtualMachine::Get().GetStats().memory) {
      if (m.device == Device::Cpu()) r += m.bytes_reserved;
    }
    return r;
  };
  const int64_t before = cpu_reserved();
  EXPECT_GE(before, int64_t{64} << 20);
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
  EXPECT_LT(cpu_reserved(), before);
}

TEST_F(CudaOps, CustomOpKernelGetsTheCudaStream) {
  ASSERT_TRUE(RegisterOp("TestCudaZeroLike",
                         [](const std::vector<TensorMeta>& in,
                            const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                           return std::vector<TensorMeta>{in[0]};
                         })
                  .ok());
  ASSERT_TRUE(
      RegisterKernel("TestCudaZeroLike", DeviceType::kCUDA, [](KernelContext& ctx) -> absl::Status {
        void* stream = ctx.cuda_stream();
        if (stream == nullptr) return absl::InternalError("no cuda stream");
        if (stream != Stream::Current(ctx.output_meta(0).device).native_handle()) {
          return absl::InternalError("not the VM's stream");
        }
#ifdef EAGERVM_WITH_CUDA
        const size_t bytes = ctx.output_meta(0).shape.numel() * SizeOf(ctx.output_meta(0).dtype);
        if (cudaMemsetAsync(ctx.raw_output(0), 0, bytes, static_cast<cudaStream_t>(stream)) !=
            cudaSuccess) {
          return absl::InternalError("cudaMemsetAsync failed");
        }
#endif
        return absl::OkStatus();
      }).ok());
  Tensor x = Full({4, 4}, 3.0f, DType::kFloat32, kGpu);
  absl::StatusOr<std::vector<Tensor>> out = ops::Call("TestCudaZeroLike", {x});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectSameValues<float>(Zeros({4, 4}, DType::kFloat32), (*out)[0]);
}

TEST_F(CudaOps, MixingDevicesInOneOpIsRejected) {
  Tensor c = Full({3}, 1.0f, DType::kFloat32), g = Full({3}, 1.0f, DType::kFloat32, kGpu);
  Tensor bad = ops::Add(c, g);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
}

}  // namespace
}  // namespace eagervm
