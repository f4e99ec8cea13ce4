// VmStats counters are exact for a known program: every instruction received
// is finished after Sync(), dispatched counts non-barrier instructions,
// barriers count Sync()s, failed counts kernels that failed (not the
// dependents that forwarded their error), rejected ops count nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

struct Delta {
  uint64_t received, dispatched, finished, failed, barriers;
};
Delta Since(const VmStats& before) {
  const VmStats now = VirtualMachine::Get().GetStats();
  return Delta{now.received - before.received, now.dispatched - before.dispatched,
               now.finished - before.finished, now.failed - before.failed,
               now.barriers - before.barriers};
}
VmStats Snapshot() {
  EXPECT_TRUE(Sync().ok());
  return VirtualMachine::Get().GetStats();
}
void ExpectIdle() {
  const VmStats s = VirtualMachine::Get().GetStats();
  EXPECT_EQ(s.in_flight, 0);
  EXPECT_EQ(s.received, s.finished);
  EXPECT_EQ(s.pending_depth, 0);
  EXPECT_EQ(s.ready_depth, 0);
  EXPECT_EQ(s.running_depth, 0);
}

TEST(Stats, KnownProgramCountsExactly) {
  const VmStats start = Snapshot();
  {
    Tensor a = Full({16}, 1.0f, DType::kFloat32);  // 1 instruction each
    Tensor b = Full({16}, 2.0f, DType::kFloat32);
    Tensor c = ops::Add(a, b);
    ASSERT_TRUE(ops::AddInplace(c, a).ok());
    Tensor small = Full({3}, 1.0f, DType::kFloat32);
    Tensor rejected = ops::Add(a, small);  // cannot broadcast: queues nothing
    EXPECT_FALSE(rejected.ok());
    ASSERT_TRUE(Sync().ok());  // 1 barrier
    Delta d = Since(start);
    EXPECT_EQ(d.received, 6u);
    EXPECT_EQ(d.dispatched, 5u);
    EXPECT_EQ(d.finished, 6u);
    EXPECT_EQ(d.barriers, 1u);
    EXPECT_EQ(d.failed, 0u);
    ExpectIdle();

    auto v = c.ToVector<float>();  // 1 read access
    ASSERT_TRUE(v.ok());
    EXPECT_EQ((*v)[0], 4.0f);
  }  // a, b, c and small were written: 4 releases (rejected has no storage)
  ASSERT_TRUE(Sync().ok());
  Delta d = Since(start);
  EXPECT_EQ(d.received, 6u + 1 + 4 + 1);
  EXPECT_EQ(d.dispatched, 5u + 1 + 4);
  EXPECT_EQ(d.finished, d.received);
  EXPECT_EQ(d.barriers, 2u);
  EXPECT_EQ(d.failed, 0u);
  ExpectIdle();
}

TEST(Stats, FailedCountsTheFailingKernelOnly) {
  static std::atomic<int> calls{0};
  ASSERT_TRUE(RegisterOp("StatsFail",
                         [](const std::vector<TensorMeta>& in,
                            const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; })
                  .ok());
  ASSERT_TRUE(RegisterKernel("StatsFail", DeviceType::kCPU, [](KernelContext&) {
                ++calls;
                return absl::InternalError("StatsFail: on purpose");
              }).ok());
  const VmStats start = Snapshot();
  {
    Tensor x = Full({4}, 1.0f, DType::kFloat32);
    auto out = ops::Call("StatsFail", {x});
    ASSERT_TRUE(out.ok()) << out.status();
    Tensor y = ops::Add((*out)[0], x);  // forwards the error: not a new failure
    Tensor z = ops::Add(y, y);
    const absl::Status s = Sync();
    EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
    Delta d = Since(start);
    EXPECT_EQ(d.received, 5u);
    EXPECT_EQ(d.dispatched, 4u);
    EXPECT_EQ(d.finished, 5u);
    EXPECT_EQ(d.failed, 1u);
    EXPECT_EQ(calls.load(), 1);
  }
  ASSERT_TRUE(Sync().ok());  // the error was reported once
  ExpectIdle();
}

TEST(Stats, ManyOpsOnTwoStreams) {
  const VmStats start = Snapshot();
  constexpr int kOps = 500;
  {
    Tensor t0 = Full({8}, 0.0f, DType::kFloat32);
    Tensor t1;
    {
      StreamScope scope(Stream(Device::Cpu(), 1));
      t1 = Full({8}, 0.0f, DType::kFloat32);
    }
    for (int i = 0; i < kOps; ++i) {
      StreamScope scope(Stream(Device::Cpu(), i % 2));
      ASSERT_TRUE(ops::AddInplace(i % 2 ? t1 : t0, i % 3 ? t0 : t1).ok());
    }
  }
  ASSERT_TRUE(Sync().ok());
  const Delta d = Since(start);
  EXPECT_EQ(d.received, 2u + kOps + 2 + 1);
  EXPECT_EQ(d.dispatched, 2u + kOps + 2);
  EXPECT_EQ(d.finished, d.received);
  EXPECT_EQ(d.barriers, 1u);
  ExpectIdle();
  const VmStats s = VirtualMachine::Get().GetStats();
  EXPECT_GE(s.peak_in_flight, 1);
  ASSERT_FALSE(s.memory.empty());
  EXPECT_EQ(s.memory[0].device, Device::Cpu());
  EXPECT_NE(s.ToString().find("received="), std::string::npos);
}

}  // namespace
}  // namespace eagervm
