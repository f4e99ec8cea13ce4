// Fault injection (src/base/fault_injection.h): a fixed two-phase program on
// two streams, run once per allocation and once per kernel call it makes,
// with exactly that call failing. Every run must end with the injected error
// at the sync point of the phase the call belongs to (the other phase exact),
// give every byte back once its tensors are dropped and Sync()ed, and leave
// the VM computing exactly.
#include "base/fault_injection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"
#include "memory_stats_util.h"

namespace eagervm {
namespace {

using base::FaultSite;

constexpr int64_t kRows = 8, kCols = 16;

std::vector<float> Values() {
  std::vector<float> v(kRows * kCols);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  return v;
}

// Phase one on the host: c = 6 * 2v, rows [0, 4) + 2; d = c + 2; sum(d b^T).
float PhaseOneReference() {
  const std::vector<float> b = Values();
  std::vector<float> d(b.size());
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t k = 0; k < kCols; ++k) {
      const int64_t i = r * kCols + k;
      d[i] = 6 * 2 * b[i] + (r < 4 ? 2 : 0) + 2;
    }
  }
  double sum = 0;  // integers below 2^24: exact in any order
  for (int64_t i = 0; i < kRows; ++i) {
    for (int64_t j = 0; j < kRows; ++j) {
      for (int64_t k = 0; k < kCols; ++k) sum += d[i * kCols + k] * b[j * kCols + k];
    }
  }
  return static_cast<float>(sum);
}

// float32 across two streams (a cross-stream read, in-place ops, views,
// MatMul with a materialised transpose), read by one Item(): the sync point.
absl::StatusOr<float> PhaseOne() {
  Tensor a, b, c;
  {
    StreamScope s0(Stream(Device::Cpu(), 0));
    a = Full({kRows, kCols}, 2, DType::kFloat32);
    b = FromVector<float>(Values(), {kRows, kCols});
  }
  absl::Status rejected;
  {
    StreamScope s1(Stream(Device::Cpu(), 1));
    c = ops::Mul(a, b);
    rejected.Update(ops::MulScalarInplace(c, 6));
    rejected.Update(ops::AddInplace(c.Slice(0, 4), a.Slice(4, 8)));
  }
  Tensor d = ops::AddScalar(c, 2);
  Tensor r = ops::Sum(ops::MatMul(d, ops::Transpose(b)));
  if (!rejected.ok()) return rejected;  // no allocation or kernel runs on this thread
  return r.Item<float>();
}

// int64, independent of phase one: To() on the other stream, AddInplace, a
// reduction along an axis, read by ToVector().
absl::StatusOr<std::vector<int64_t>> PhaseTwo() {
  std::vector<int64_t> v(kRows * kCols);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i % 11);
  Tensor x = FromVector<int64_t>(v, {kRows, kCols});
  Tensor y;
  {
    StreamScope s1(Stream(Device::Cpu(), 1));
    y = x.To(Device::Cpu());
  }
  Tensor z = Zeros({kRows, kCols}, DType::kInt64);
  // AddInplace reads z: an allocation that failed for Zeros surfaces at the
  // read (CopyInto would overwrite z and heal it).
  absl::Status rejected = ops::AddInplace(z, ops::Add(x, y));
  Tensor m = ops::Max(z, /*axis=*/1);
  if (!rejected.ok()) return rejected;
  return m.ToVector<int64_t>();
}

std::vector<int64_t> PhaseTwoReference() {
  std::vector<int64_t> out(kRows, 0);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t k = 0; k < kCols; ++k) out[r] = std::max(out[r], 2 * ((r * kCols + k) % 11));
  }
  return out;
}

int64_t CpuBytesInUse() { return testing::CpuMemoryStats().bytes_in_use; }

// Calls of `site` each phase makes, counted on a clean run (armed far away).
struct Calls {
  int64_t phase_one = 0, phase_two = 0;
};
Calls CountCalls(FaultSite site) {
  constexpr int64_t kFar = int64_t{1} << 40;
  Calls calls;
  base::ArmFault(site, kFar);
  EXPECT_TRUE(PhaseOne().ok());
  EXPECT_TRUE(Sync().ok());
  calls.phase_one = kFar - base::FaultCountdown(site);
  EXPECT_TRUE(PhaseTwo().ok());
  EXPECT_TRUE(Sync().ok());
  calls.phase_two = kFar - base::FaultCountdown(site) - calls.phase_one;
  base::ArmFault(site, 0);
  return calls;
}

void ExpectInjected(const absl::Status& s, FaultSite site, const std::string& where) {
  const absl::StatusCode want = site == FaultSite::kAllocation
                                    ? absl::StatusCode::kResourceExhausted
                                    : absl::StatusCode::kAborted;
  EXPECT_EQ(s.code(), want) << where << ": " << s;
  EXPECT_NE(std::string(s.message()).find("injected fault"), std::string::npos)
      << where << ": " << s;
}

// Runs both phases with call n of `site` failing, and checks the outcome.
void SweepOne(FaultSite site, const Calls& calls, int64_t n, int64_t baseline_bytes) {
  const std::string where = (site == FaultSite::kAllocation ? "allocation " : "kernel ") +
                            std::to_string(n) + " of " +
                            std::to_string(calls.phase_one + calls.phase_two);
  const int64_t injected_before = base::InjectedFaults(site);
  base::ArmFault(site, n);
  absl::StatusOr<float> one = PhaseOne();
  absl::StatusOr<std::vector<int64_t>> two = PhaseTwo();
  // The error was reported by the phase's read: Sync has nothing left.
  EXPECT_TRUE(Sync().ok()) << where;
  base::ArmFault(site, 0);
  EXPECT_EQ(base::InjectedFaults(site), injected_before + 1) << where;
  if (n <= calls.phase_one) {
    ExpectInjected(one.status(), site, where + ", phase one");
    ASSERT_TRUE(two.ok()) << where << ": " << two.status();
    EXPECT_EQ(*two, PhaseTwoReference()) << where;
  } else {
    ASSERT_TRUE(one.ok()) << where << ": " << one.status();
    EXPECT_EQ(*one, PhaseOneReference()) << where;
    ExpectInjected(two.status(), site, where + ", phase two");
  }
  // Every tensor of the run is gone and released: memory is back.
  EXPECT_EQ(CpuBytesInUse(), baseline_bytes) << where;
  // The VM still computes exactly.
  absl::StatusOr<float> again = PhaseOne();
  ASSERT_TRUE(again.ok()) << where << ": " << again.status();
  EXPECT_EQ(*again, PhaseOneReference()) << where;
  EXPECT_TRUE(Sync().ok()) << where;
}

void Sweep(FaultSite site) {
  // Warm up (streams, workers, caches), then take the baseline.
  ASSERT_TRUE(PhaseOne().ok());
  ASSERT_TRUE(PhaseTwo().ok());
  ASSERT_TRUE(Sync().ok());
  const int64_t baseline = CpuBytesInUse();
  const Calls calls = CountCalls(site);
  ASSERT_GT(calls.phase_one, 0);
  ASSERT_GT(calls.phase_two, 0);
  for (int64_t n = 1; n <= calls.phase_one + calls.phase_two; ++n) {
    SweepOne(site, calls, n, baseline);
    if (::testing::Test::HasFatalFailure()) return;
  }
  ::testing::Test::RecordProperty(
      site == FaultSite::kAllocation ? "allocation_faults" : "kernel_faults",
      static_cast<int>(calls.phase_one + calls.phase_two));
  std::printf("%s faults injected: %lld (phase one %lld, phase two %lld)\n",
              site == FaultSite::kAllocation ? "allocation" : "kernel",
              static_cast<long long>(calls.phase_one + calls.phase_two),
              static_cast<long long>(calls.phase_one), static_cast<long long>(calls.phase_two));
}

TEST(FaultInjection, CleanRunIsExact) {
  absl::StatusOr<float> one = PhaseOne();
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(*one, PhaseOneReference());
  absl::StatusOr<std::vector<int64_t>> two = PhaseTwo();
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(*two, PhaseTwoReference());
  EXPECT_TRUE(Sync().ok());
}

TEST(FaultInjection, EveryAllocation) { Sweep(FaultSite::kAllocation); }

// The system refuses one new segment (FaultSite::kSystemAllocation, as a
// failed malloc): unlike an allocation over the limit, the allocator retries
// (a segment of exactly the request, or after shrinking the caches) and
// recovers, so both phases stay exact. Caches are emptied before each run
// so every run needs new segments.
TEST(FaultInjection, EverySystemRefusalRecovers) {
  const FaultSite site = FaultSite::kSystemAllocation;
  ASSERT_TRUE(PhaseOne().ok());
  ASSERT_TRUE(PhaseTwo().ok());
  ASSERT_TRUE(Sync().ok());
  const int64_t baseline = CpuBytesInUse();
  constexpr int64_t kFar = int64_t{1} << 40;
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
  base::ArmFault(site, kFar);
  ASSERT_TRUE(PhaseOne().ok());
  ASSERT_TRUE(PhaseTwo().ok());
  ASSERT_TRUE(Sync().ok());
  const int64_t calls = kFar - base::FaultCountdown(site);
  base::ArmFault(site, 0);
  ASSERT_GT(calls, 0) << "no new segment: nothing to refuse";
  for (int64_t n = 1; n <= calls; ++n) {
    const std::string where =
        "system refusal " + std::to_string(n) + " of " + std::to_string(calls);
    ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
    const int64_t injected_before = base::InjectedFaults(site);
    base::ArmFault(site, n);
    absl::StatusOr<float> one = PhaseOne();
    absl::StatusOr<std::vector<int64_t>> two = PhaseTwo();
    EXPECT_TRUE(Sync().ok()) << where;
    base::ArmFault(site, 0);
    EXPECT_EQ(base::InjectedFaults(site), injected_before + 1) << where;
    ASSERT_TRUE(one.ok()) << where << ": " << one.status();
    EXPECT_EQ(*one, PhaseOneReference()) << where;
    ASSERT_TRUE(two.ok()) << where << ": " << two.status();
    EXPECT_EQ(*two, PhaseTwoReference()) << where;
    EXPECT_EQ(CpuBytesInUse(), baseline) << where;
  }
  std::printf("system refusals injected: %lld (each recovered)\n", static_cast<long long>(calls));
}
TEST(FaultInjection, EveryKernel) { Sweep(FaultSite::kKernel); }

// Disarmed (or spent) hooks inject nothing.
TEST(FaultInjection, DisarmedInjectsNothing) {
  base::ArmFault(FaultSite::kKernel, 0);
  base::ArmFault(FaultSite::kAllocation, 0);
  const int64_t before =
      base::InjectedFaults(FaultSite::kKernel) + base::InjectedFaults(FaultSite::kAllocation);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(PhaseOne().ok());
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(base::InjectedFaults(FaultSite::kKernel) + base::InjectedFaults(FaultSite::kAllocation),
            before);
}

}  // namespace
}  // namespace eagervm
