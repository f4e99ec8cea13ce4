// Regressions from the adversarial review of the eager core
// (shared/research/eager_adversarial_review.md, issue 28): each test failed
// on the code it was written against and names the finding it pins.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

bool Has(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

// A custom op `name` with out = in[0] (float32); fails when attr "fail" is set.
void RegisterCopyOp(const std::string& name, OpOptions options = {}) {
  auto meta = [](const std::vector<TensorMeta>& in,
                 const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
    return std::vector<TensorMeta>{in.at(0)};
  };
  ASSERT_TRUE(RegisterOp(name, meta, options).ok());
  ASSERT_TRUE(RegisterKernel(name, DeviceType::kCPU, [](KernelContext& ctx) {
                if (ctx.attrs().contains("fail")) return absl::AbortedError("told to fail");
                const int64_t n = ctx.input_meta(0).shape.numel();
                for (int64_t i = 0; i < n; ++i) ctx.output<float>(0)[i] = ctx.input<float>(0)[i];
                return absl::OkStatus();
              }).ok());
}

Tensor Failed(int64_t n) {
  static const bool registered = [] {
    RegisterCopyOp("regress.Copy");
    return true;
  }();
  (void)registered;
  absl::StatusOr<TensorList> out =
      ops::Call("regress.Copy", {Full({n}, 1.0f, DType::kFloat32)}, {{"fail", int64_t{1}}});
  EXPECT_TRUE(out.ok()) << out.status();
  return (*out)[0];
}

// --- B2: a partial write heals nothing it did not write ---

// InstructionsBuilder::Call writing 2 of 1024 elements of a failed tensor.
TEST(PartialWrite, AWriteThroughASliceDoesNotHealAFailedStorage) {
  RegisterCopyOp("regress.CopyB2");
  Tensor bad = Failed(1024);
  Tensor y = ops::AddScalar(bad, 1.0f);  // forwards the error; storage never allocated
  {
    Tensor sevens = Full({1024}, 7.0f, DType::kFloat32);  // freed: its block is cached
    ASSERT_TRUE(sevens.Wait().ok());
  }
  Tensor src = Full({2}, 5.0f, DType::kFloat32);
  absl::StatusOr<OpHandle> op = OpHandle::Find("regress.CopyB2");
  ASSERT_TRUE(op.ok()) << op.status();
  const Tensor view = y.Slice(0, 2);
  absl::Status s = vm::PhysicalRun([&](vm::InstructionsBuilder* b) {
    return b->Call(*op, {&src, 1}, {&view, 1}, {}, Stream::Current(Device::Cpu()));
  });
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<std::vector<float>> whole = y.ToVector<float>();
  EXPECT_FALSE(whole.ok()) << "stale bytes returned as OK";
  EXPECT_EQ(whole.status().code(), absl::StatusCode::kAborted) << whole.status();
  EXPECT_FALSE(y.Slice(2, 1024).ToVector<float>().ok());
  (void)Sync();
}

// FillInplace through a view of a never-written (Empty) tensor: the written
// rows read back, the others are "never written", not another tensor's bytes.
TEST(PartialWrite, BytesNoWriteCoveredAreNeverWritten) {
  {
    Tensor sevens = Full({4, 3}, 7.0f, DType::kFloat32);
    ASSERT_TRUE(sevens.Wait().ok());
  }
  Tensor e = Empty({4, 3}, DType::kFloat32);
  ASSERT_TRUE(ops::FillInplace(e.Slice(1, 2), 2.0f).ok());
  absl::StatusOr<std::vector<float>> row = e.Slice(1, 2).ToVector<float>();
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(*row, std::vector<float>(3, 2.0f));
  absl::StatusOr<std::vector<float>> whole = e.ToVector<float>();
  EXPECT_EQ(whole.status().code(), absl::StatusCode::kFailedPrecondition) << whole.status();
  EXPECT_TRUE(Has(whole.status(), "no write covered")) << whole.status();
  Tensor sum = ops::Sum(e);
  EXPECT_EQ(sum.Wait().code(), absl::StatusCode::kFailedPrecondition);
  (void)Sync();
  // Writing the remaining rows makes the whole readable: built piece by piece.
  ASSERT_TRUE(ops::FillInplace(e.Slice(0, 1), 1.0f).ok());
  ASSERT_TRUE(ops::CopyInto(e.Slice(2, 4), Full({2, 3}, 3.0f, DType::kFloat32)).ok());
  whole = e.ToVector<float>();
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(*whole, (std::vector<float>{1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3}));
  EXPECT_TRUE(Sync().ok());
}

// A copy whose source is the never-written storage it overwrites (the
// same tensor, or another view of it): the source is refused before the
// destination is allocated, not read as if allocating made it written.
TEST(PartialWrite, ACopyFromTheStorageItOverwritesIsNeverWritten) {
  {
    Tensor sevens = Full({4}, 7.0f, DType::kFloat32);
    ASSERT_TRUE(sevens.Wait().ok());
  }
  Tensor a = Empty({4}, DType::kFloat32);
  ASSERT_TRUE(ops::CopyInto(a, a).ok());
  absl::StatusOr<std::vector<float>> va = a.ToVector<float>();
  EXPECT_EQ(va.status().code(), absl::StatusCode::kFailedPrecondition) << va.status();
  EXPECT_TRUE(Has(va.status(), "never written")) << va.status();
  Tensor b = Empty({4}, DType::kFloat32);
  ASSERT_TRUE(ops::CopyInto(b.Slice(0, 2), b.Slice(2, 4)).ok());
  absl::StatusOr<std::vector<float>> vb = b.Slice(0, 2).ToVector<float>();
  EXPECT_FALSE(vb.ok()) << "stale bytes returned as OK";
  EXPECT_TRUE(Has(vb.status(), "never written")) << vb.status();
  (void)Sync();
}

// --- B6: FillInplace and CopyInto overwrite self without reading it ---

TEST(Overwrite, FillAndCopyIntoWriteAnEmptyTensor) {
  Tensor a = Empty({4}, DType::kFloat32);
  ASSERT_TRUE(ops::FillInplace(a, 3.0f).ok());
  absl::StatusOr<std::vector<float>> va = a.ToVector<float>();
  ASSERT_TRUE(va.ok()) << va.status();
  EXPECT_EQ(*va, std::vector<float>(4, 3.0f));
  Tensor b = Empty({4}, DType::kFloat32);
  ASSERT_TRUE(ops::CopyInto(b, a).ok());
  absl::StatusOr<std::vector<float>> vb = b.ToVector<float>();
  ASSERT_TRUE(vb.ok()) << vb.status();
  EXPECT_EQ(*vb, std::vector<float>(4, 3.0f));
  EXPECT_TRUE(Sync().ok());
}

TEST(Overwrite, FillAndCopyIntoHealAFailedTensor) {
  Tensor w = Full({4}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(ops::AddInplace(w, Failed(4)).ok());  // w += bad_grad
  EXPECT_EQ(w.Wait().code(), absl::StatusCode::kAborted);
  ASSERT_TRUE(ops::FillInplace(w, 0.0f).ok());
  absl::StatusOr<std::vector<float>> v = w.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<float>(4, 0.0f));
  ASSERT_TRUE(ops::AddInplace(w, Failed(4)).ok());
  ASSERT_TRUE(ops::CopyInto(w, Full({4}, 6.0f, DType::kFloat32)).ok());
  v = w.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<float>(4, 6.0f));
  (void)Sync();
  // A fill of part of a failed tensor heals nothing.
  ASSERT_TRUE(ops::AddInplace(w, Failed(4)).ok());
  ASSERT_TRUE(ops::FillInplace(w.Slice(0, 2), 1.0f).ok());
  EXPECT_EQ(w.Wait().code(), absl::StatusCode::kAborted);
  (void)Sync();
}

// A custom op may declare the same: an overwritten input need not be written.
TEST(Overwrite, CustomOpsDeclareOverwrittenInputs) {
  auto none = [](const std::vector<TensorMeta>&,
                 const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
    return std::vector<TensorMeta>{};
  };
  OpOptions o;
  o.mutated_inputs = {0};
  o.overwritten_inputs = {0};
  ASSERT_TRUE(RegisterOp("regress.SetNine", none, o).ok());
  ASSERT_TRUE(RegisterKernel("regress.SetNine", DeviceType::kCPU, [](KernelContext& ctx) {
                float* x = ctx.mutable_input<float>(0);
                for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) x[i] = 9;
                return absl::OkStatus();
              }).ok());
  Tensor e = Empty({3}, DType::kFloat32);
  ASSERT_TRUE(ops::Call("regress.SetNine", {e}).ok());
  absl::StatusOr<std::vector<float>> v = e.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<float>(3, 9.0f));
  OpOptions bad;
  bad.overwritten_inputs = {0};  // not mutated
  absl::Status s = RegisterOp("regress.BadOverwrite", none, bad);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

// --- B1: attrs compare bit for bit; the kernel gets its own call's ---

TEST(Attrs, NegativeZeroIsNotZero) {
  auto meta = [](const std::vector<TensorMeta>& in,
                 const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
    return std::vector<TensorMeta>{in.at(0)};
  };
  ASSERT_TRUE(RegisterOp("regress.Recip", meta).ok());
  ASSERT_TRUE(RegisterKernel("regress.Recip", DeviceType::kCPU, [](KernelContext& ctx) {
                ctx.output<float>(0)[0] =
                    static_cast<float>(1.0 / std::get<double>(ctx.attrs().at("f")));
                return absl::OkStatus();
              }).ok());
  Tensor x = Full({1}, 0.0f, DType::kFloat32);
  auto recip = [&](double f) {
    absl::StatusOr<TensorList> out = ops::Call("regress.Recip", {x}, {{"f", f}});
    EXPECT_TRUE(out.ok()) << out.status();
    absl::StatusOr<float> v = (*out)[0].Item<float>();
    EXPECT_TRUE(v.ok()) << v.status();
    return *v;
  };
  EXPECT_EQ(recip(0.0), std::numeric_limits<float>::infinity());
  EXPECT_EQ(recip(-0.0), -std::numeric_limits<float>::infinity());  // the last-call check
  EXPECT_EQ(recip(0.0), std::numeric_limits<float>::infinity());
  (void)recip(2.0);                                                 // another call between
  EXPECT_EQ(recip(-0.0), -std::numeric_limits<float>::infinity());  // the hashed table
  // The same NaN is the same attribute (cached), and computes NaN.
  EXPECT_TRUE(std::isnan(recip(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(recip(std::numeric_limits<double>::quiet_NaN())));
}

// --- B3: more than 64 inputs ---

TEST(ManyInputs, InputsPast64AreReadOnly) {
  auto none = [](const std::vector<TensorMeta>&,
                 const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
    return std::vector<TensorMeta>{};
  };
  OpOptions o;
  o.mutated_inputs = {0};
  ASSERT_TRUE(RegisterOp("regress.Many", none, o).ok());
  ASSERT_TRUE(RegisterKernel("regress.Many", DeviceType::kCPU, [](KernelContext& ctx) {
                // Only input 0 may be written.
                for (int i = 1; i < ctx.num_inputs(); ++i) {
                  if (ctx.mutable_input<float>(i) != nullptr)
                    return absl::InternalError("writable");
                }
                return absl::AbortedError("fails after checking");
              }).ok());
  std::vector<Tensor> in;
  for (int i = 0; i < 70; ++i) in.push_back(Full({1}, static_cast<float>(i), DType::kFloat32));
  ASSERT_TRUE(ops::Call("regress.Many", in).ok());
  EXPECT_EQ(in[0].Wait().code(), absl::StatusCode::kAborted);  // mutated: poisoned
  for (int i = 1; i < 70; ++i) {
    absl::StatusOr<float> v = in[i].Item<float>();
    ASSERT_TRUE(v.ok()) << "read-only input " << i << ": " << v.status();
    EXPECT_EQ(*v, static_cast<float>(i));
  }
  (void)Sync();
}

// --- B4: Configure validates every field ---

TEST(Configure, RejectsEveryFieldOutOfRange) {
  auto rejected = [](auto set, const char* field) {
    VmOptions o;
    set(o);
    absl::Status s = VirtualMachine::Configure(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field << ": " << s;
    EXPECT_TRUE(Has(s, field)) << s;
  };
  rejected([](VmOptions& o) { o.inline_max_bytes = -1; }, "inline_max_bytes");
  rejected([](VmOptions& o) { o.cpu_streams = 0; }, "cpu_streams");
  rejected([](VmOptions& o) { o.max_in_flight = 1; }, "max_in_flight");
  rejected([](VmOptions& o) { o.spin_us = -1; }, "spin_us");
  rejected([](VmOptions& o) { o.spin_us = 1'000'001; }, "spin_us");
  rejected([](VmOptions& o) { o.cpu_memory_limit = -1; }, "cpu_memory_limit");
  rejected([](VmOptions& o) { o.cuda_memory_limit = -1; }, "cuda_memory_limit");
  rejected([](VmOptions& o) { o.oom_wait_ms = -1; }, "oom_wait_ms");
  rejected([](VmOptions& o) { o.oom_wait_ms = std::numeric_limits<int64_t>::max(); },
           "oom_wait_ms");
  rejected([](VmOptions& o) { o.hang_timeout_ms = std::numeric_limits<int64_t>::max(); },
           "hang_timeout_ms");
}

// --- B5: a skipped callback is said ---

TEST(AccessCallback, ASkippedCallbackOnAReportedErrorSurfacesAtSync) {
  Tensor bad = Failed(4);
  EXPECT_EQ(bad.Wait().code(), absl::StatusCode::kAborted);  // reported
  std::atomic<bool> ran{false};
  absl::Status s = vm::PhysicalRun([&](vm::InstructionsBuilder* b) {
    return b->AccessBlobByCallback(
        bad, [&](void*, size_t) { ran = true; }, vm::AccessMode::kWrite);
  });
  ASSERT_TRUE(s.ok()) << s;
  absl::Status sync = Sync();
  EXPECT_FALSE(ran.load());
  EXPECT_EQ(sync.code(), absl::StatusCode::kAborted) << sync;
  EXPECT_TRUE(Has(sync, "the callback was not run")) << sync;
  EXPECT_TRUE(Sync().ok());
}

// --- B8: FromBlob(nullptr, {0}) is a valid empty tensor ---

TEST(FromBlob, AnEmptyNullBlobReadsAsEmptyAndItsDeleterRunsOnce) {
  std::atomic<int> deleted{0};
  std::atomic<bool> got_null{false};
  {
    Tensor t = FromBlob(nullptr, {0}, DType::kFloat32, [&](void* p) {
      got_null = p == nullptr;
      ++deleted;
    });
    ASSERT_TRUE(t.ok()) << t.status();
    absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->empty());
    absl::StatusOr<float> sum = ops::Sum(t).Item<float>();
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(*sum, 0.0f);
  }
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(deleted.load(), 1);
  EXPECT_TRUE(got_null.load()) << "the deleter gets the user's pointer back";
}

// --- errors name the function the user called ---

TEST(Messages, FullAndZerosNameThemselves) {
  Tensor f = Full({-1}, 1.0f, DType::kFloat32);
  EXPECT_TRUE(Has(f.status(), "Full:")) << f.status();
  Tensor z = Zeros({-1}, DType::kFloat32);
  EXPECT_TRUE(Has(z.status(), "Zeros:")) << z.status();
  EXPECT_TRUE(Has(z.status(), "dimension 0 is -1")) << z.status();
}

TEST(Messages, AnOverflowingElementCountSaysSo) {
  const int64_t big = int64_t{1} << 40;
  Tensor z = Zeros({big, big}, DType::kFloat32);
  EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(z.status(), "element count overflows")) << z.status();
  Tensor e = Empty({1, 2, 3, 4, 5, 6, 7, 8, 9}, DType::kFloat32);
  EXPECT_TRUE(Has(e.status(), "more than 8 dimensions")) << e.status();
}

// --- undefined and error tensors are not scalars ---

TEST(Undefined, HasNoScalarAnswers) {
  Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_FALSE(u.has_meta());
  EXPECT_EQ(u.dim(), -1);
  EXPECT_EQ(u.numel(), 0);
  EXPECT_EQ(u.nbytes(), 0u);
  Tensor rejected = Full({-1}, 1.0f, DType::kFloat32);
  EXPECT_FALSE(rejected.has_meta());
  EXPECT_EQ(rejected.dim(), -1);
  EXPECT_EQ(rejected.numel(), 0);
  Tensor scalar = Full({}, 1.0f, DType::kFloat32);
  EXPECT_TRUE(scalar.has_meta());
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_FALSE(u.Item<float>().ok());
}

}  // namespace
}  // namespace eagervm
