// Out of memory with a device limit (VmOptions::cpu_memory_limit): programs
// that fit only after releases succeed through recovery; programs that cannot
// fit fail with ResourceExhausted as data, and the VM stays usable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "memory_stats_util.h"

namespace eagervm {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kLimit = 64 * kMiB;
// How long an allocation waits for other streams' releases. Sanitizer builds
// run the slow reader (a 10M-float sum) several times slower, and CI runs
// tests in parallel, so they get a wider window.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int64_t kOomWaitMs = 6000;
#else
constexpr int64_t kOomWaitMs = 1000;
#endif

Stream S(int i) { return Stream(Device::Cpu(), i); }
int64_t Floats(int64_t mib) { return mib * kMiB / 4; }

MemoryStats Cpu() { return testing::CpuMemoryStats(); }

// SlowSum(x) -> scalar: sleeps, then sums (a slow reader with a tiny output).
void RegisterSlowSum() {
  static const bool registered = [] {
    auto scalar_meta = [](const std::vector<TensorMeta>& in,
                          const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{{Shape{}, DType::kFloat32, in[0].device}};
    };
    EXPECT_TRUE(RegisterOp("SlowSum", scalar_meta).ok());
    EXPECT_TRUE(RegisterKernel("SlowSum", DeviceType::kCPU, [](KernelContext& ctx) {
                  std::this_thread::sleep_for(150ms);
                  const float* x = ctx.input<float>(0);
                  float s = 0;
                  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) s += x[i];
                  *ctx.output<float>(0) = s;
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)registered;
}

class OomTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    VmOptions o;
    o.cpu_streams = 2;
    o.cpu_memory_limit = kLimit;
    o.oom_wait_ms = kOomWaitMs;
    ASSERT_TRUE(VirtualMachine::Configure(o).ok());
    RegisterSlowSum();
  }
  void TearDown() override {
    EXPECT_TRUE(Sync().ok());
    EXPECT_TRUE(VirtualMachine::Get().EmptyCache().ok());
    EXPECT_EQ(Cpu().bytes_in_use, 0) << VirtualMachine::Get().GetStats();
  }
};

// 40 MiB dropped (cached on stream 0), then 48 MiB: fits only once the cached
// block goes back to the system.
TEST_F(OomTest, FitsAfterShrinkingTheCache) {
  const int64_t before = Cpu().oom_recoveries;
  {
    Tensor a = Full({Floats(40)}, 1.0f, DType::kFloat32);
    ASSERT_TRUE(a.Wait().ok());
  }
  Tensor b = Full({Floats(48)}, 2.0f, DType::kFloat32);
  absl::StatusOr<float> last = ops::Add(b.Slice(0, 1), b.Slice(0, 1)).Item<float>();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 4.0f);
  EXPECT_GE(Cpu().oom_recoveries, before + 1) << VirtualMachine::Get().GetStats();
  EXPECT_LE(Cpu().bytes_reserved, kLimit);
}

// 40 MiB live on stream 1 under a slow reader, dropped; then 48 MiB on
// stream 0. Stream 0's allocation must wait for stream 1's release.
TEST_F(OomTest, WaitsForAReleaseOnAnotherStream) {
  const int64_t before = Cpu().oom_recoveries;
  Tensor sum;
  {
    StreamScope on1(S(1));
    Tensor a = Full({Floats(40)}, 1.0f, DType::kFloat32);
    ASSERT_TRUE(a.Wait().ok());
    absl::StatusOr<std::vector<Tensor>> r = ops::Call("SlowSum", {a});
    ASSERT_TRUE(r.ok()) << r.status();
    sum = (*r)[0];
  }  // a dropped: its release waits for SlowSum on stream 1
  const auto start = std::chrono::steady_clock::now();
  Tensor b = Full({Floats(48)}, 2.0f, DType::kFloat32);
  ASSERT_TRUE(b.Wait().ok()) << VirtualMachine::Get().GetStats();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(kOomWaitMs));
  EXPECT_GE(Cpu().oom_recoveries, before + 1);
  absl::StatusOr<float> s = sum.Item<float>();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, static_cast<float>(Floats(40)));
}

// Larger than the whole limit: fails at once, as data.
TEST_F(OomTest, LargerThanTheLimitFailsAtSync) {
  Tensor big = Full({Floats(80)}, 1.0f, DType::kFloat32);
  ASSERT_TRUE(big.ok());  // runtime errors never show in ok()
  Tensor dependent = ops::Add(big, big);
  absl::Status s = Sync();
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  const std::string msg(s.message());
  EXPECT_NE(msg.find(std::to_string(Floats(80) * 4) + " bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(kLimit) + " bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in use on cpu"), std::string::npos) << msg;
  EXPECT_EQ(dependent.Wait().code(), absl::StatusCode::kResourceExhausted);
}

// A live set that never fits: fails after the bounded wait; the VM then runs
// a normal program.
TEST_F(OomTest, LiveSetTooLargeFailsThenTheVmStillWorks) {
  const int64_t failures = Cpu().oom_failures;
  Tensor a = Full({Floats(40)}, 1.0f, DType::kFloat32);
  Tensor b = Full({Floats(40)}, 1.0f, DType::kFloat32);  // a is still live
  absl::Status s = Sync();
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_NE(std::string(s.message()).find("Full:"), std::string::npos) << s;  // names the call
  EXPECT_TRUE(a.Wait().ok());
  EXPECT_EQ(b.Wait().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Cpu().oom_failures, failures + 1);
  a = Tensor();
  b = Tensor();

  Tensor x = Full({4}, 1.5f, DType::kFloat32);
  Tensor y = ops::Add(x, x);
  absl::StatusOr<std::vector<float>> v = y.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<float>(4, 3.0f));
  EXPECT_TRUE(Sync().ok());
  // Now the big one fits.
  Tensor c = Full({Floats(40)}, 1.0f, DType::kFloat32);
  EXPECT_TRUE(c.Wait().ok());
}

}  // namespace
}  // namespace eagervm
