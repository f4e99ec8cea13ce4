// The custom-op API: an embedding application registers an op and its kernel
// and calls it through ops::Call, without touching eagervm.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::QueueProbe;
using testing::Values;

// out = x * attrs["factor"] + attrs["offset"]: float32 only.
absl::Status RegisterAffine() {
  absl::Status s = RegisterOp("test.Affine",
                              [](const std::vector<TensorMeta>& in,
                                 const Attrs& attrs) -> absl::StatusOr<std::vector<TensorMeta>> {
                                if (in.size() != 1)
                                  return absl::InvalidArgumentError("takes one input");
                                if (!attrs.contains("factor"))
                                  return absl::InvalidArgumentError("needs attr 'factor'");
                                return std::vector<TensorMeta>{in[0]};
                              });
  if (!s.ok()) return s;
  return RegisterKernel("test.Affine", DeviceType::kCPU, [](KernelContext& ctx) -> absl::Status {
    const float* x = ctx.input<float>(0);
    float* out = ctx.output<float>(0);
    if (x == nullptr) return absl::InvalidArgumentError("float32 only");
    const double factor = std::get<double>(ctx.attrs().at("factor"));
    auto it = ctx.attrs().find("offset");
    const double offset = it == ctx.attrs().end() ? 0.0 : std::get<double>(it->second);
    for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) {
      out[i] = static_cast<float>(x[i] * factor + offset);
    }
    return absl::OkStatus();
  });
}

TEST(CustomOp, RegisterCallAndAttrsReachTheKernel) {
  ASSERT_TRUE(RegisterAffine().ok());
  Tensor x = Make<float>({1, 2, 3}, {3});
  absl::StatusOr<std::vector<Tensor>> y =
      ops::Call("test.Affine", {x}, {{"factor", 2.0}, {"offset", 0.5}});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->size(), 1u);
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{2.5, 4.5, 6.5}));
  // Composes with built-ins in both directions.
  auto z = ops::Call("test.Affine", {ops::Sum(x).Reshape({1})}, {{"factor", -1.0}});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(Values<float>((*z)[0] + 1.0f), (std::vector<float>{-5}));
}

TEST(CustomOp, EveryAttrTypeArrives) {
  ASSERT_TRUE(RegisterOp("test.Attrs",
                         [](const std::vector<TensorMeta>&,
                            const Attrs& a) -> absl::StatusOr<std::vector<TensorMeta>> {
                           return std::vector<TensorMeta>{{Shape{5}, DType::kInt64, Device::Cpu()}};
                         })
                  .ok());
  ASSERT_TRUE(RegisterKernel("test.Attrs", DeviceType::kCPU, [](KernelContext& ctx) {
                const Attrs& a = ctx.attrs();
                int64_t* out = ctx.output<int64_t>(0);
                out[0] = std::get<int64_t>(a.at("i"));
                out[1] = std::get<bool>(a.at("b")) ? 1 : 0;
                out[2] = static_cast<int64_t>(std::get<std::string>(a.at("s")).size());
                out[3] = std::get<std::vector<int64_t>>(a.at("v")).at(2);
                out[4] = static_cast<int64_t>(std::get<DType>(a.at("d")));
                return absl::OkStatus();
              }).ok());
  Attrs attrs = {{"i", int64_t{42}},
                 {"b", true},
                 {"s", std::string("hello")},
                 {"v", std::vector<int64_t>{7, 8, 9}},
                 {"d", DType::kFloat64}};
  // No inputs: the output's device picks the stream.
  auto out = ops::Call("test.Attrs", {}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]),
            (std::vector<int64_t>{42, 1, 5, 9, static_cast<int64_t>(DType::kFloat64)}));
}

TEST(CustomOp, RegisteringTwiceIsAlreadyExists) {
  auto infer = [](const std::vector<TensorMeta>& in,
                  const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; };
  ASSERT_TRUE(RegisterOp("test.Twice", infer).ok());
  EXPECT_EQ(RegisterOp("test.Twice", infer).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(RegisterOp("Add", infer).code(), absl::StatusCode::kAlreadyExists);  // built-ins too
  auto k = [](KernelContext&) { return absl::OkStatus(); };
  ASSERT_TRUE(RegisterKernel("test.Twice", DeviceType::kCPU, k).ok());
  EXPECT_EQ(RegisterKernel("test.Twice", DeviceType::kCPU, k).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(RegisterKernel("test.NeverRegistered", DeviceType::kCPU, k).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(RegisterOp("test.NoInfer", nullptr).code(), absl::StatusCode::kInvalidArgument);
}

TEST(CustomOp, ThrowingKernelBecomesAStatusAtSync) {
  auto same = [](const std::vector<TensorMeta>& in,
                 const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; };
  ASSERT_TRUE(RegisterOp("test.Throws", same).ok());
  ASSERT_TRUE(RegisterKernel("test.Throws", DeviceType::kCPU, [](KernelContext&) -> absl::Status {
                throw std::runtime_error("boom");
              }).ok());
  Tensor x = Make<float>({1, 2}, {2});
  auto y = ops::Call("test.Throws", {x});
  ASSERT_TRUE(y.ok());        // queued fine; the failure is runtime data
  EXPECT_TRUE((*y)[0].ok());  // never visible to ok()
  Tensor dependent = (*y)[0] * 2.0f;
  absl::Status s = Sync();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_NE(s.message().find("test.Throws: kernel threw: boom"), std::string::npos) << s;
  EXPECT_FALSE(dependent.Wait().ok());                          // forwarded to dependents
  EXPECT_TRUE(Sync().ok());                                     // reported once
  EXPECT_EQ(Values<float>(x + x), (std::vector<float>{2, 4}));  // the VM keeps running
}

TEST(CustomOp, KernelErrorStatusNamesTheOp) {
  ASSERT_TRUE(RegisterAffine().code() == absl::StatusCode::kAlreadyExists || true);
  Tensor i = Make<int32_t>({1}, {1});
  auto y = ops::Call("test.Affine", {i}, {{"factor", 1.0}});
  ASSERT_TRUE(y.ok());
  absl::Status s = (*y)[0].Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("test.Affine: float32 only"), std::string::npos) << s;
  (void)Sync();
}

TEST(CustomOp, InferErrorsAreReturnedAndQueueNothing) {
  Tensor x = Make<float>({1}, {1});
  QueueProbe probe;
  auto y = ops::Call("test.Affine", {x});  // no 'factor'
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(y.status().message().find("test.Affine: needs attr 'factor'"), std::string::npos);
  auto z = ops::Call("test.Affine", {x, x}, {{"factor", 1.0}});
  EXPECT_NE(z.status().message().find("takes one input"), std::string::npos);
  auto w = ops::Call("test.Affine", {Tensor()}, {{"factor", 1.0}});
  EXPECT_EQ(w.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(probe.Count(), 0u);
  EXPECT_TRUE(Sync().ok());
}

// ops::Call lends each thread one vector of input metas; an InferFn that calls
// an op itself must still see its own inputs afterwards.
TEST(CustomOp, InferFnMayCallAnOp) {
  const absl::Status affine = RegisterAffine();  // or an earlier test did
  ASSERT_TRUE(affine.ok() || affine.code() == absl::StatusCode::kAlreadyExists) << affine;
  ASSERT_TRUE(
      RegisterOp("test.InferCallsAffine",
                 [](const std::vector<TensorMeta>& in,
                    const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                   auto inner = ops::Call("test.Affine", {Full({1}, 1.0f, DType::kFloat32)},
                                          {{"factor", 2.0}});
                   if (!inner.ok()) return inner.status();
                   if (in.size() != 2 || in[0].shape != Shape{2} || in[1].shape != Shape{3}) {
                     return absl::InternalError("the nested call clobbered the input metas");
                   }
                   return std::vector<TensorMeta>{in[1]};
                 })
          .ok());
  ASSERT_TRUE(RegisterKernel("test.InferCallsAffine", DeviceType::kCPU, [](KernelContext& ctx) {
                std::memcpy(ctx.output<float>(0), ctx.input<float>(1), 3 * sizeof(float));
                return absl::OkStatus();
              }).ok());
  for (int round = 0; round < 2; ++round) {  // the second finds the vector given back
    auto y =
        ops::Call("test.InferCallsAffine", {Make<float>({1, 2}, {2}), Make<float>({3, 4, 5}, {3})});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{3, 4, 5}));
  }
  EXPECT_TRUE(Sync().ok());
}

TEST(CustomOp, MutatedInputsAreOrderedAgainstEarlierReads) {
  OpOptions opts;
  opts.mutated_inputs = {0};
  ASSERT_TRUE(RegisterOp(
                  "test.AddOneInplace",
                  [](const std::vector<TensorMeta>&,
                     const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                    return std::vector<TensorMeta>{};
                  },
                  opts)
                  .ok());
  ASSERT_TRUE(RegisterKernel("test.AddOneInplace", DeviceType::kCPU, [](KernelContext& ctx) {
                float* self = ctx.mutable_input<float>(0);
                if (self == nullptr) return absl::InternalError("input 0 should be writable");
                if (ctx.mutable_input<float>(1) != nullptr) {
                  return absl::InternalError("input 1 is not declared mutated");
                }
                for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) self[i] += 1;
                return absl::OkStatus();
              }).ok());
  Tensor x = Make<float>({1, 2}, {2});
  Tensor other = Make<float>({0, 0}, {2});
  Tensor before = x * 10.0f;  // reads x before the mutation (WAR)
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ops::Call("test.AddOneInplace", {x, other}).ok());
  Tensor after = x * 10.0f;  // reads after (RAW)
  EXPECT_EQ(Values<float>(before), (std::vector<float>{10, 20}));
  EXPECT_EQ(Values<float>(after), (std::vector<float>{40, 50}));
  EXPECT_TRUE(Sync().ok());
}

TEST(CustomOp, AllocateTempGivesStreamScratchMemory) {
  auto same = [](const std::vector<TensorMeta>& in,
                 const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; };
  ASSERT_TRUE(RegisterOp("test.ReverseViaTemp", same).ok());
  ASSERT_TRUE(
      RegisterKernel("test.ReverseViaTemp", DeviceType::kCPU, [](KernelContext& ctx) {
        const int64_t n = ctx.input_meta(0).shape.numel();
        absl::StatusOr<void*> tmp = ctx.AllocateTemp(static_cast<size_t>(n) * sizeof(double));
        if (!tmp.ok()) return tmp.status();
        auto* scratch = static_cast<double*>(*tmp);
        const double* x = ctx.input<double>(0);
        for (int64_t i = 0; i < n; ++i) scratch[n - 1 - i] = x[i];
        std::memcpy(ctx.output<double>(0), scratch, static_cast<size_t>(n) * sizeof(double));
        EXPECT_EQ(ctx.cuda_stream(), nullptr);
        return absl::OkStatus();
      }).ok());
  for (int round = 0; round < 20; ++round) {  // temps are returned after each kernel
    Tensor x = Make<double>({1, 2, 3, 4}, {4});
    auto y = ops::Call("test.ReverseViaTemp", {x});
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(Values<double>((*y)[0]), (std::vector<double>{4, 3, 2, 1}));
  }
  EXPECT_TRUE(Sync().ok());
}

TEST(CustomOp, BlockingCallFromAKernelIsFailedPreconditionNotADeadlock) {
  auto same = [](const std::vector<TensorMeta>& in,
                 const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; };
  ASSERT_TRUE(RegisterOp("test.SyncInside", same).ok());
  static std::atomic<int> code{-1};
  ASSERT_TRUE(RegisterKernel("test.SyncInside", DeviceType::kCPU, [](KernelContext& ctx) {
                code = static_cast<int>(Sync().code());
                std::memcpy(ctx.output<float>(0), ctx.input<float>(0), sizeof(float));
                return absl::OkStatus();
              }).ok());
  auto y = ops::Call("test.SyncInside", {Make<float>({1}, {1})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(*(*y)[0].Item<float>(), 1.0f);
  EXPECT_EQ(code.load(), static_cast<int>(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace eagervm
