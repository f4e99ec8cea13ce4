// Errors are data (DESIGN §6): bad input is rejected on the calling thread
// with nothing queued; runtime failures poison outputs, flow to dependents
// without running them, and surface once at the next sync point.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using ::testing::HasSubstr;

std::atomic<int> counting_calls{0};
absl::Status sync_in_kernel = absl::OkStatus();  // written by a VM thread, read after Sync
absl::Status item_in_kernel = absl::OkStatus();

absl::StatusOr<std::vector<TensorMeta>> SameMeta(const std::vector<TensorMeta>& in, const Attrs&) {
  return std::vector<TensorMeta>{in[0]};
}

// Fail(x) -> y: returns an error.  Throw(x) -> y: throws.
// Counting(x) -> y: y = x, counts its calls.  CallsSync(x) -> y: calls Sync().
void RegisterTestOps() {
  static const bool registered = [] {
    EXPECT_TRUE(RegisterOp("Fail", SameMeta).ok());
    EXPECT_TRUE(RegisterKernel("Fail", DeviceType::kCPU, [](KernelContext&) {
                  return absl::DataLossError("boom");
                }).ok());
    EXPECT_TRUE(RegisterOp("Throw", SameMeta).ok());
    EXPECT_TRUE(RegisterKernel("Throw", DeviceType::kCPU, [](KernelContext&) -> absl::Status {
                  throw std::runtime_error("kaboom");
                }).ok());
    EXPECT_TRUE(RegisterOp("Counting", SameMeta).ok());
    EXPECT_TRUE(RegisterKernel("Counting", DeviceType::kCPU, [](KernelContext& ctx) {
                  counting_calls.fetch_add(1);
                  const float* x = ctx.input<float>(0);
                  float* y = ctx.output<float>(0);
                  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) y[i] = x[i];
                  return absl::OkStatus();
                }).ok());
    EXPECT_TRUE(RegisterOp("CallsSync", SameMeta).ok());
    EXPECT_TRUE(RegisterKernel("CallsSync", DeviceType::kCPU, [](KernelContext& ctx) {
                  sync_in_kernel = Sync();
                  item_in_kernel = Full({}, 1.0f, DType::kFloat32).Item<float>().status();
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)registered;
}

Tensor Call1(const char* op, const Tensor& x) {
  absl::StatusOr<std::vector<Tensor>> r = ops::Call(op, {x});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? (*r)[0] : Tensor();
}

class ErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterTestOps();
    ASSERT_TRUE(Sync().ok());  // no error left over from an earlier test
  }
  static uint64_t Received() { return VirtualMachine::Get().GetStats().received; }
};

TEST_F(ErrorsTest, ShapeMismatchRejectedAtOnceNothingQueued) {
  Tensor a = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor b = Full({4}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  const uint64_t before = Received();

  Tensor c = ops::Add(a, b);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("Add"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("[2,3]"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("[4]"));

  absl::Status s = ops::AddInplace(a, b);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("AddInplace"));
  s = ops::CopyInto(a, b);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("CopyInto"));
  EXPECT_FALSE(a.Reshape({5}).ok());
  EXPECT_FALSE(a.Slice(1, 3).ok());
  EXPECT_EQ(Received(), before);
}

// Binary elementwise ops promote mixed dtypes (NumPy's rules; the strict
// refusal is dtypes_strict_test's); ops that need one dtype refuse at once.
TEST_F(ErrorsTest, DTypeMismatchRejectedAtOnce) {
  Tensor f = Full({3, 3}, 1.0f, DType::kFloat32);
  Tensor i = Full({3, 3}, 1, DType::kInt64);
  ASSERT_TRUE(Sync().ok());
  const uint64_t before = Received();
  Tensor c = ops::MatMul(f, i);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("MatMul"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("float32"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("int64"));
  EXPECT_EQ(ops::AddInplace(f, i).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ops::CopyInto(f, i).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Received(), before);
}

TEST_F(ErrorsTest, UndefinedAndMovedFromTensors) {
  Tensor a = Full({2}, 1.0f, DType::kFloat32);
  Tensor b = std::move(a);
  ASSERT_TRUE(Sync().ok());
  const uint64_t before = Received();
  EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): that is the test
  EXPECT_EQ(ops::Add(a, b).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ops::Add(b, Tensor()).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ops::AddInplace(a, b).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ops::FillInplace(Tensor(), 1).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.Item<float>().status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a.Wait().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Received(), before);
}

TEST_F(ErrorsTest, ErrorTensorForwardsItsError) {
  Tensor bad = ops::Add(Full({2}, 1.0f, DType::kFloat32), Full({3}, 1.0f, DType::kFloat32));
  ASSERT_FALSE(bad.ok());
  ASSERT_TRUE(Sync().ok());
  const uint64_t before = Received();
  Tensor ok = Full({2}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(ok.ok());
  const uint64_t after_full = Received();
  EXPECT_EQ(ops::Add(bad, ok).status(), bad.status());
  EXPECT_EQ(ops::Add(ok, bad).status(), bad.status());
  EXPECT_EQ(ops::AddInplace(ok, bad), bad.status());
  EXPECT_EQ(ops::MulScalarInplace(bad, 2), bad.status());
  EXPECT_EQ(bad.To(Device::Cpu()).status(), bad.status());
  EXPECT_EQ(bad.Wait(), bad.status());
  EXPECT_EQ(bad.Item<float>().status(), bad.status());
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("Counting", {bad});
  EXPECT_EQ(r.status(), bad.status());
  EXPECT_GT(after_full, before);
  EXPECT_EQ(Received(), after_full);
}

TEST_F(ErrorsTest, FailingKernelPoisonsDependentsAndSyncReportsOnce) {
  const uint64_t failed_before = VirtualMachine::Get().GetStats().failed;
  const int calls_before = counting_calls.load();
  Tensor x = Full({3}, 1.0f, DType::kFloat32);
  Tensor y = Call1("Fail", x);
  ASSERT_TRUE(y.ok());  // runtime errors are never visible to ok()
  Tensor z = Call1("Counting", y);
  Tensor w = ops::Add(z, x);
  ASSERT_TRUE(w.ok());

  absl::Status s = Sync();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.message()), HasSubstr("boom"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("Fail"));
  EXPECT_TRUE(Sync().ok());                        // reported once
  EXPECT_EQ(counting_calls.load(), calls_before);  // the dependent's kernel never ran
  EXPECT_EQ(VirtualMachine::Get().GetStats().failed, failed_before + 1);  // forwards don't count

  // The tensors keep their error.
  EXPECT_EQ(y.Wait().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(w.Wait().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(w.ToVector<float>().status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(z.Reshape({3}).Slice(0, 1).Reshape({}).Item<float>().status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_TRUE(Sync().ok());

  // An in-place op on a poisoned tensor reads it, so it forwards the error
  // (without reporting it again).
  ASSERT_TRUE(ops::AddInplace(w, x).ok());
  EXPECT_EQ(w.Wait().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(Sync().ok());

  // The VM keeps working.
  Tensor v = ops::Add(x, x);
  absl::StatusOr<std::vector<float>> values = v.ToVector<float>();
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ(*values, std::vector<float>(3, 2));
  EXPECT_TRUE(Sync().ok());
}

TEST_F(ErrorsTest, WaitReportsSoSyncDoesNotRepeatIt) {
  Tensor y = Call1("Fail", Full({1}, 1.0f, DType::kFloat32));
  EXPECT_EQ(y.Wait().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(Sync().ok());
  Tensor y2 = Call1("Fail", Full({1}, 1.0f, DType::kFloat32));
  EXPECT_EQ(y2.Item<float>().status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(Sync().ok());
}

TEST_F(ErrorsTest, ThrowingKernelIsCaught) {
  const int calls_before = counting_calls.load();
  Tensor y = Call1("Throw", Full({2}, 1.0f, DType::kFloat32));
  Tensor z = Call1("Counting", y);
  absl::Status s = z.Wait();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("kaboom"));
  EXPECT_EQ(y.Item<float>().status().code(), absl::StatusCode::kInvalidArgument);  // 2 elements
  EXPECT_THAT(std::string(y.Wait().message()), HasSubstr("kaboom"));
  EXPECT_EQ(counting_calls.load(), calls_before);
  EXPECT_TRUE(Sync().ok());  // Wait already reported it
  Tensor ok = ops::Add(Full({2}, 2.0f, DType::kFloat32), Full({2}, 3.0f, DType::kFloat32));
  EXPECT_EQ(ok.ToVector<float>().value(), std::vector<float>(2, 5));
}

TEST_F(ErrorsTest, SeveralFailuresOneSync) {
  Tensor a = Call1("Fail", Full({1}, 1.0f, DType::kFloat32));
  Tensor b = Call1("Throw", Full({1}, 1.0f, DType::kFloat32));
  absl::Status s = Sync();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("more error"));
  EXPECT_TRUE(Sync().ok());
}

TEST_F(ErrorsTest, ItemNeedsOneElementAndTheRightType) {
  Tensor t = Full({2, 2}, 1.0f, DType::kFloat32);
  absl::StatusOr<float> v = t.Item<float>();
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(v.status().message()), HasSubstr("[2,2]"));
  Tensor s = Full({}, 1.0f, DType::kFloat32);
  EXPECT_EQ(s.Item<int64_t>().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToVector<double>().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Item<float>().value(), 1.0f);
  std::vector<float> buf(3);
  EXPECT_EQ(t.CopyToHost(buf.data(), buf.size() * sizeof(float)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ErrorsTest, BlockingCallInsideKernelFailsInsteadOfDeadlocking) {
  Tensor y = Call1("CallsSync", Full({1}, 1.0f, DType::kFloat32));
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(sync_in_kernel.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(item_in_kernel.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(y.Wait().ok());
}

TEST_F(ErrorsTest, BadStreamIndexRejected) {
  StreamScope scope(Stream(Device::Cpu(), 1000));
  Tensor t = Full({1}, 1.0f, DType::kFloat32);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eagervm
