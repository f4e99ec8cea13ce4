// The low-level front door, used as a runtime builder would: several
// instructions in one PhysicalRun, a failing build queues nothing, host
// callbacks ordered by the read/write rules, barriers, custom ops through the
// builder, and the errors a builder must turn into statuses. Public API only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "block_until.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using vm::AccessMode;
using vm::InstructionsBuilder;
using vm::PhysicalRun;

std::vector<float> Values(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>{};
}

// out = in + attrs["add"] (default 1); float32 CPU.
const OpHandle& AddConst() {
  static const OpHandle* h = [] {
    absl::Status s = RegisterOp("ib.AddConst",
                                [](const std::vector<TensorMeta>& in,
                                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                                  return std::vector<TensorMeta>{in.at(0)};
                                });
    EXPECT_TRUE(s.ok()) << s;
    s = RegisterKernel("ib.AddConst", DeviceType::kCPU, [](KernelContext& ctx) -> absl::Status {
      auto it = ctx.attrs().find("add");
      const float add =
          it == ctx.attrs().end() ? 1.0f : static_cast<float>(std::get<double>(it->second));
      const float* x = ctx.input<float>(0);
      float* y = ctx.output<float>(0);
      for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) y[i] = x[i] + add;
      return absl::OkStatus();
    });
    EXPECT_TRUE(s.ok()) << s;
    absl::StatusOr<OpHandle> op = OpHandle::Find("ib.AddConst");
    EXPECT_TRUE(op.ok());
    return new OpHandle(*op);
  }();
  return *h;
}

// Sleeps 50 ms, then writes 7 into its (mutated) input 0 and sets the flag.
std::atomic<bool> slow_seven_done{false};
const OpHandle& SlowSeven() {
  static const OpHandle* h = [] {
    OpOptions options;
    options.mutated_inputs = {0};
    absl::Status s = RegisterOp(
        "ib.SlowSeven",
        [](const std::vector<TensorMeta>&, const Attrs&)
            -> absl::StatusOr<std::vector<TensorMeta>> { return std::vector<TensorMeta>{}; },
        options);
    EXPECT_TRUE(s.ok()) << s;
    s = RegisterKernel("ib.SlowSeven", DeviceType::kCPU, [](KernelContext& ctx) -> absl::Status {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      float* x = ctx.mutable_input<float>(0);
      for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) x[i] = 7;
      slow_seven_done.store(true);
      return absl::OkStatus();
    });
    EXPECT_TRUE(s.ok()) << s;
    return new OpHandle(*OpHandle::Find("ib.SlowSeven"));
  }();
  return *h;
}

Stream Cpu0() { return Stream::Default(Device::Cpu()); }

TEST(InstructionsBuilder, SeveralInstructionsInOneListRunInOrder) {
  Tensor x = FromVector<float>({1, 2, 3}, {3});
  Tensor a = Empty({3}, DType::kFloat32), b = Empty({3}, DType::kFloat32),
         c = Empty({3}, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  const uint64_t before = VirtualMachine::Get().GetStats().received;
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    // a = x + 1, b = a + 10, c = b + 1: each reads the previous one's output.
    EAGERVM_RETURN_IF_ERROR(builder->Call(AddConst(), {x}, {a}, {}, Cpu0()));
    EAGERVM_RETURN_IF_ERROR(builder->Call(AddConst(), {a}, {b}, {{"add", 10.0}}, Cpu0()));
    return builder->Call(AddConst(), {b}, {c}, {}, Cpu0());
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(VirtualMachine::Get().GetStats().received - before, 3u);
  EXPECT_EQ(Values(c), (std::vector<float>{13, 14, 15}));
  EXPECT_EQ(Values(a), (std::vector<float>{2, 3, 4}));
}

TEST(InstructionsBuilder, AFailingBuildQueuesNothing) {
  Tensor x = FromVector<float>({1, 2}, {2});
  Tensor y = Empty({2}, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  const uint64_t before = VirtualMachine::Get().GetStats().received;
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    EAGERVM_RETURN_IF_ERROR(builder->Call(AddConst(), {x}, {y}, {}, Cpu0()));
    return absl::AbortedError("changed my mind");
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(VirtualMachine::Get().GetStats().received - before, 1u);  // Sync's own barrier only
  // y was never written: reading it is an error, not stale data.
  EXPECT_FALSE(y.ToVector<float>().ok());
}

TEST(InstructionsBuilder, BadArgumentsAreRejectedAtTheCallWithTheOpName) {
  Tensor x = FromVector<float>({1, 2}, {2});
  Tensor y = Empty({2}, DType::kFloat32);
  Tensor bad = Tensor::Error(absl::InvalidArgumentError("upstream rejection"));
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) {
    return builder->Call(AddConst(), {bad}, {y}, {}, Cpu0());
  });
  EXPECT_EQ(s.message(), "upstream rejection");
  s = PhysicalRun([&](InstructionsBuilder* builder) {
    return builder->Call(AddConst(), {Tensor()}, {y}, {}, Cpu0());
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("ib.AddConst"), std::string::npos) << s;
  s = PhysicalRun([&](InstructionsBuilder* builder) {
    return builder->Call(AddConst(), {x}, {y}, {}, Stream(Device::Cuda(0), 0));
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("input 0 is on cpu but the stream is on cuda:0"), std::string::npos)
      << s;
  // The op declares input 0 mutated but gets none: the same check as ops::Call.
  s = PhysicalRun([&](InstructionsBuilder* builder) {
    return builder->Call(SlowSeven(), {}, {y}, {}, Cpu0());
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("declares input 0 mutated but got 0 inputs"), std::string::npos) << s;
}

TEST(InstructionsBuilder, AccessBlobByCallbackFollowsReadWriteOrder) {
  Tensor t = Empty({4}, DType::kFloat32);
  Tensor out = Empty({4}, DType::kFloat32);
  std::vector<float> seen_before, seen_after;
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    // Write t, read it with an op, read it from the host, then overwrite it:
    // the op and the read must see the first write, not the second (WAR).
    EAGERVM_RETURN_IF_ERROR(builder->AccessBlobByCallback(
        t,
        [](void* data, size_t bytes) {
          const float v[4] = {1, 2, 3, 4};
          std::memcpy(data, v, bytes);
        },
        AccessMode::kWrite));
    EAGERVM_RETURN_IF_ERROR(builder->Call(AddConst(), {t}, {out}, {}, Cpu0()));
    EAGERVM_RETURN_IF_ERROR(builder->AccessBlobByCallback(
        t,
        [&](void* data, size_t bytes) {
          seen_before.assign(static_cast<float*>(data), static_cast<float*>(data) + bytes / 4);
        },
        AccessMode::kRead));
    EAGERVM_RETURN_IF_ERROR(builder->AccessBlobByCallback(
        t, [](void* data, size_t bytes) { std::memset(data, 0, bytes); }, AccessMode::kWrite));
    return builder->AccessBlobByCallback(
        t,
        [&](void* data, size_t bytes) {
          seen_after.assign(static_cast<float*>(data), static_cast<float*>(data) + bytes / 4);
        },
        AccessMode::kRead);
  });
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(Values(out), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(seen_before, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(seen_after, (std::vector<float>{0, 0, 0, 0}));
}

TEST(InstructionsBuilder, BarrierRunsAfterEveryEarlierInstruction) {
  slow_seven_done = false;
  std::atomic<bool> barrier_saw_done{false};
  std::atomic<bool> barrier_ran{false};
  Tensor t = Zeros({8}, DType::kFloat32);
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    EAGERVM_RETURN_IF_ERROR(builder->Call(SlowSeven(), {t}, {}, {}, Cpu0()));
    return builder->Barrier([&] {
      barrier_saw_done = slow_seven_done.load();
      barrier_ran = true;
    });
  });
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(PhysicalRun([](InstructionsBuilder* builder) { return builder->GlobalSync(); }).ok());
  ASSERT_TRUE(Sync().ok());
  EXPECT_TRUE(barrier_ran);
  EXPECT_TRUE(barrier_saw_done);
  EXPECT_EQ(Values(t)[0], 7.0f);
}

TEST(InstructionsBuilder, OpsCalledInsideABuildKeepProgramOrder) {
  Tensor x = Empty({2}, DType::kFloat32);
  Tensor y;
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    EAGERVM_RETURN_IF_ERROR(builder->AccessBlobByCallback(
        x,
        [](void* data, size_t) {
          static_cast<float*>(data)[0] = 5;
          static_cast<float*>(data)[1] = 6;
        },
        AccessMode::kWrite));
    y = ops::MulScalar(x, 2);  // joins this batch after the write it reads
    return y.status();
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Values(y), (std::vector<float>{10, 12}));
}

TEST(InstructionsBuilder, BlockingInsideABuildIsFailedPreconditionNotAHang) {
  Tensor x = FromVector<float>({1}, {1});
  absl::Status inner;
  absl::Status s = PhysicalRun([&](InstructionsBuilder*) {
    inner = x.Item<float>().status();
    return absl::OkStatus();
  });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(inner.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(inner.message().find("inside a PhysicalRun build callback"), std::string::npos)
      << inner;
  absl::Status sync;
  s = PhysicalRun([&](InstructionsBuilder*) {
    sync = Sync();
    return absl::OkStatus();
  });
  EXPECT_EQ(sync.code(), absl::StatusCode::kFailedPrecondition);
}

TEST(InstructionsBuilder, ThrowingCallbacksAreReportedBySync) {
  Tensor t = FromVector<float>({1}, {1});
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    EAGERVM_RETURN_IF_ERROR(builder->AccessBlobByCallback(
        t, [](void*, size_t) { throw std::runtime_error("host callback failed"); },
        AccessMode::kRead));
    return builder->Barrier([] { throw 42; });
  });
  ASSERT_TRUE(s.ok()) << s;
  absl::Status sync = Sync();
  EXPECT_EQ(sync.code(), absl::StatusCode::kInternal);
  EXPECT_NE(sync.message().find("host callback failed"), std::string::npos) << sync;
  EXPECT_NE(sync.message().find("1 more error"), std::string::npos) << sync;
  // The VM and the tensor are fine afterwards.
  EXPECT_TRUE(Sync().ok());
  EXPECT_EQ(Values(t + t), (std::vector<float>{2}));
}

// A callback that blocks holds up its own CPU stream only: work on another
// stream is dispatched and finishes meanwhile (a callback on the scheduler
// thread would stall it until the callback's 20 s timeout).
TEST(InstructionsBuilder, ABlockingCallbackHoldsUpOnlyItsOwnStream) {
  Tensor t = FromVector<float>({1, 2}, {2});
  std::atomic<bool> release{false}, timed_out{false};
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    return builder->AccessBlobByCallback(
        t,
        [&](void*, size_t) {
          if (!testing::BlockUntil(release, std::chrono::seconds(20))) timed_out = true;
        },
        AccessMode::kRead);
  });
  ASSERT_TRUE(s.ok()) << s;
  std::vector<float> other;
  {
    StreamScope on(Stream(Device::Cpu(), 1));
    other = Values(FromVector<float>({3}, {1}) + FromVector<float>({4}, {1}));
  }
  release = true;
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(other, (std::vector<float>{7}));
  EXPECT_FALSE(timed_out.load());
}

TEST(InstructionsBuilder, ReleaseTensorFreesAfterEarlierUses) {
  Tensor x = FromVector<float>({3, 4}, {2});
  Tensor y = Empty({2}, DType::kFloat32);
  absl::Status s = PhysicalRun([&](InstructionsBuilder* builder) -> absl::Status {
    EAGERVM_RETURN_IF_ERROR(builder->Call(AddConst(), {x}, {y}, {}, Cpu0()));
    return builder->ReleaseTensor(x);
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Values(y), (std::vector<float>{4, 5}));  // the call read x before its release
  EXPECT_FALSE(x.ToVector<float>().ok());            // later uses fail
}

}  // namespace
}  // namespace eagervm
