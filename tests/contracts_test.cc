// The public contracts that used to be false (issue 11, item 8): a kernel
// registered while another thread calls its op, EmptyCache reporting errors
// like the Sync it promises, FromBlob's deleter, Stream::native_handle.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "memory_stats_util.h"

namespace eagervm {
namespace {

absl::StatusOr<std::vector<TensorMeta>> SameMeta(const std::vector<TensorMeta>& in, const Attrs&) {
  return std::vector<TensorMeta>{in[0]};
}

absl::Status Double(KernelContext& ctx) {
  const float* x = ctx.input<float>(0);
  float* y = ctx.output<float>(0);
  if (x == nullptr || y == nullptr) return absl::InvalidArgumentError("float32 only");
  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) y[i] = 2 * x[i];
  return absl::OkStatus();
}

// The kernel slot is published while another thread keeps calling the op: the
// caller sees "no kernel" or the whole kernel, never a half-stored
// std::function (under TSan the old unlocked read of a plain slot is a race).
TEST(Contracts, RegisterKernelWhileAnotherThreadCallsTheOp) {
  constexpr int kOps = 8;
  for (int op = 0; op < kOps; ++op) {
    const std::string name = "contracts.Late" + std::to_string(op);
    ASSERT_TRUE(RegisterOp(name, SameMeta).ok());
    const Tensor x = FromVector<float>({1, 2, 3}, {3});
    std::atomic<bool> registered{false};
    std::atomic<bool> started{false};
    int rejected = 0;
    std::thread caller([&] {
      for (;;) {
        const bool after = registered.load(std::memory_order_acquire);
        absl::StatusOr<std::vector<Tensor>> y = ops::Call(name, {x});
        started.store(true, std::memory_order_release);
        if (y.ok()) {
          EXPECT_EQ((*y)[0].ToVector<float>().value(), (std::vector<float>{2, 4, 6}));
          return;
        }
        // Once RegisterKernel has returned, every later call finds the kernel.
        ASSERT_FALSE(after) << y.status();
        ASSERT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
        ++rejected;
      }
    });
    while (!started.load(std::memory_order_acquire)) std::this_thread::yield();
    ASSERT_TRUE(RegisterKernel(name, DeviceType::kCPU, Double).ok());
    registered.store(true, std::memory_order_release);
    caller.join();
    EXPECT_GT(rejected, 0) << "the caller ran before the kernel existed";
  }
  // A kernel is never replaced.
  EXPECT_EQ(RegisterKernel("contracts.Late0", DeviceType::kCPU, Double).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(Sync().ok());
}

// EmptyCache "blocks like Sync()": it returns the runtime error Sync would,
// which then counts as reported, and still gives the cached memory back.
TEST(Contracts, EmptyCacheReportsTheErrorSyncWouldAndStillShrinks) {
  ASSERT_TRUE(RegisterOp("contracts.Fail", SameMeta).ok());
  ASSERT_TRUE(RegisterKernel("contracts.Fail", DeviceType::kCPU, [](KernelContext&) {
                return absl::DataLossError("contracts boom");
              }).ok());
  ASSERT_TRUE(Sync().ok());
  {
    Tensor big = Full({int64_t{1} << 20}, 1.0f, DType::kFloat32);  // 4 MiB, cached once dropped
    absl::StatusOr<std::vector<Tensor>> y = ops::Call("contracts.Fail", {big});
    ASSERT_TRUE(y.ok()) << y.status();  // accepted; it fails when it runs
  }
  const absl::Status s = VirtualMachine::Get().EmptyCache();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(std::string(s.message()).find("contracts boom"), std::string::npos) << s;
  EXPECT_TRUE(Sync().ok()) << "EmptyCache reported the error; Sync must not repeat it";
  const MemoryStats m = testing::CpuMemoryStats();
  EXPECT_EQ(m.bytes_in_use, 0);
  EXPECT_EQ(m.bytes_reserved, 0) << VirtualMachine::Get().GetStats();
}

// A deleter that throws is caught (and logged), not std::terminate.
TEST(Contracts, ThrowingFromBlobDeleterIsCaughtAndLogged) {
  struct Log {
    std::mutex mu;
    std::vector<std::string> lines;
  };
  auto log = std::make_shared<Log>();
  SetLogSink([log](LogLevel level, std::string_view msg) {
    std::lock_guard<std::mutex> lock(log->mu);
    log->lines.push_back(std::string(ToString(level)) + ": " + std::string(msg));
  });
  static float data[4] = {1, 2, 3, 4};
  std::atomic<int> calls{0};
  {
    Tensor t = FromBlob(data, {4}, DType::kFloat32, [&calls](void* p) {
      EXPECT_EQ(p, data);
      calls.fetch_add(1);
      throw std::runtime_error("deleter failed");
    });
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ((t + t).ToVector<float>().value(), (std::vector<float>{2, 4, 6, 8}));
  }
  ASSERT_TRUE(Sync().ok());  // the release ran: the deleter too
  EXPECT_EQ(calls.load(), 1);
  SetLogSink(nullptr);
  std::lock_guard<std::mutex> lock(log->mu);
  ASSERT_EQ(log->lines.size(), 1u);
  EXPECT_NE(log->lines[0].find("error: the deleter given to FromBlob threw (deleter failed)"),
            std::string::npos)
      << log->lines[0];
}

TEST(Contracts, RejectedFromBlobNeverCallsTheDeleter) {
  float data[2] = {1, 2};
  int calls = 0;
  {
    Tensor t = FromBlob(data, {-1}, DType::kFloat32, [&calls](void*) { ++calls; });
    EXPECT_FALSE(t.ok());
  }
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(calls, 0);
}

// native_handle creates the stream, as documented, and is nullptr for CPU
// streams and for streams that cannot exist.
TEST(Contracts, NativeHandle) {
  EXPECT_EQ(Stream::Default(Device::Cpu()).native_handle(), nullptr);
  EXPECT_EQ(Stream(Device::Cpu(), 1000).native_handle(), nullptr);
  if (CudaDeviceCount() == 0) {
    EXPECT_EQ(Stream::Default(Device::Cuda(0)).native_handle(), nullptr);
  } else {
    EXPECT_NE(Stream(Device::Cuda(0), 5).native_handle(), nullptr);
  }
}

}  // namespace
}  // namespace eagervm
