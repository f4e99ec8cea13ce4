// Hang diagnostics (VmOptions::hang_timeout_ms, docs/reliability.md): a
// kernel that blocks until the test releases it. Blocking calls then return
// DeadlineExceeded naming what they waited for, DumpState() names the op,
// nothing is lost, and every call succeeds once the kernel is released.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "configured_vm.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

constexpr int64_t kTimeoutMs = 100;
const auto* const env = ::testing::AddGlobalTestEnvironment(
    new testing::ConfiguredVm([](VmOptions& o) { o.hang_timeout_ms = kTimeoutMs; }));

std::atomic<bool> released{false};
std::atomic<int> entered{0};

// y = x + 1, once `released`; `sleep_ms` > 0: sleeps that long instead.
absl::Status BlockingKernel(KernelContext& ctx) {
  entered.fetch_add(1);
  const int64_t sleep_ms = std::get<int64_t>(ctx.attrs().at("sleep_ms"));
  if (sleep_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  } else {
    while (!released.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ctx.output<float>(0)[0] = ctx.input<float>(0)[0] + 1;
  return absl::OkStatus();
}

void RegisterOnce(const char* name, bool runs_inline) {
  OpOptions options;
  options.small_runs_inline = runs_inline;
  ASSERT_TRUE(RegisterOp(
                  name,
                  [](const std::vector<TensorMeta>& in, const Attrs&) {
                    return std::vector<TensorMeta>{in[0]};
                  },
                  options)
                  .ok());
  ASSERT_TRUE(RegisterKernel(name, DeviceType::kCPU, BlockingKernel).ok());
}

Tensor Blocking(const char* op, const Tensor& x, int64_t sleep_ms = 0) {
  auto out = ops::Call(op, {x}, {{"sleep_ms", sleep_ms}});
  EXPECT_TRUE(out.ok()) << out.status();
  return (*out)[0];
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

class Hang : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RegisterOnce("BlockUntilReleased", /*runs_inline=*/false);
    RegisterOnce("BlockInline", /*runs_inline=*/true);
  }
  void SetUp() override {
    released = false;
    entered = 0;
  }
};

TEST_F(Hang, EveryBlockingCallReportsTheStuckOpThenSucceedsAfterRelease) {
  Tensor x = FromVector<float>({41}, {1});
  Tensor y = Blocking("BlockUntilReleased", x);
  Tensor z;
  {
    StreamScope other(Stream(Device::Cpu(), 1));
    z = ops::AddScalar(y, 1);  // another stream: an edge that waits for the stuck op
  }
  Tensor w = ops::AddScalar(y, 0);  // same stream: queued behind it
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = Sync();
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_LT(Seconds(start), 20.0 * kTimeoutMs / 1000);  // a few timeouts, not forever
  EXPECT_NE(s.message().find("Sync()"), std::string::npos) << s;
  EXPECT_NE(s.message().find("BlockUntilReleased"), std::string::npos) << s;
  EXPECT_NE(s.message().find("computing"), std::string::npos) << s;

  EXPECT_EQ(z.Item<float>().status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(z.ToVector<float>().status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(z.Wait().code(), absl::StatusCode::kDeadlineExceeded);
  float host = 0;
  EXPECT_EQ(z.CopyToHost(&host, sizeof(host)).code(), absl::StatusCode::kDeadlineExceeded);

  const std::string dump = VirtualMachine::Get().DumpState();
  EXPECT_NE(dump.find("BlockUntilReleased"), std::string::npos) << dump;
  EXPECT_NE(dump.find("running for"), std::string::npos) << dump;
  EXPECT_NE(dump.find("waits for"), std::string::npos) << dump;      // z's AddScalar on y
  EXPECT_NE(dump.find("queued behind"), std::string::npos) << dump;  // w's

  released = true;
  EXPECT_TRUE(Sync().ok());
  auto v = z.Item<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 43);
  EXPECT_EQ(*w.Item<float>(), 42);
  EXPECT_EQ(entered.load(), 1);
}

TEST_F(Hang, SlowButMovingWorkIsNotAHang) {
  // Each op takes less than the timeout; together far more than it.
  Tensor t = FromVector<float>({0}, {1});
  for (int i = 0; i < 8; ++i) t = Blocking("BlockUntilReleased", t, /*sleep_ms=*/kTimeoutMs / 2);
  auto v = t.Item<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 8);
}

TEST_F(Hang, AKernelBlockingTheSchedulerIsNamed) {
  // A "small" op that blocks anyway runs on the scheduler thread itself:
  // the dump cannot come from the scheduler, and says who holds it.
  Tensor x = FromVector<float>({1}, {1});
  ASSERT_TRUE(Sync().ok());  // an idle stream: the small op then runs inline
  Tensor y = Blocking("BlockInline", x);
  while (entered.load() == 0) std::this_thread::yield();
  absl::Status s = Sync();
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_NE(s.message().find("did not answer"), std::string::npos) << s;
  EXPECT_NE(s.message().find("BlockInline"), std::string::npos) << s;
  released = true;
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(*y.Item<float>(), 2);
}

TEST_F(Hang, AnIdleVmDumpsNothingLively) {
  ASSERT_TRUE(Sync().ok());
  const std::string dump = VirtualMachine::Get().DumpState();
  EXPECT_NE(dump.find("0 lively instruction"), std::string::npos) << dump;
  EXPECT_NE(dump.find("VmStats{"), std::string::npos) << dump;
}

}  // namespace
}  // namespace eagervm
