// Cross-stream release (DESIGN §5): a tensor produced on stream 0, read by a
// kernel on stream 1 and dropped while that read is in flight, keeps its memory
// until the read is done — even though stream 0 keeps allocating and writing.
// Differential: the reader must see the original values, and the new tensors
// must not get the old address until after the read (when they must).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using namespace std::chrono_literals;

std::atomic<bool> reader_started{false};
std::atomic<bool> reader_may_finish{false};

Stream S(int i) { return Stream(Device::Cpu(), i); }

void RegisterOps() {
  static const bool registered = [] {
    auto same_meta = [](const std::vector<TensorMeta>& in,
                        const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{in[0]};
    };
    auto address_meta = [](const std::vector<TensorMeta>& in,
                           const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{{Shape{}, DType::kInt64, in[0].device}};
    };
    // GatedCopy(x) -> y: waits until the test opens the gate, then copies.
    EXPECT_TRUE(RegisterOp("GatedCopy", same_meta).ok());
    EXPECT_TRUE(RegisterKernel("GatedCopy", DeviceType::kCPU, [](KernelContext& ctx) {
                  reader_started = true;
                  const auto give_up = std::chrono::steady_clock::now() + 20s;
                  while (!reader_may_finish && std::chrono::steady_clock::now() < give_up) {
                    std::this_thread::sleep_for(1ms);
                  }
                  const float* x = ctx.input<float>(0);
                  float* y = ctx.output<float>(0);
                  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) y[i] = x[i];
                  return absl::OkStatus();
                }).ok());
    // AddressOf(x) -> int64: where x's storage lives.
    EXPECT_TRUE(RegisterOp("AddressOf", address_meta).ok());
    EXPECT_TRUE(RegisterKernel("AddressOf", DeviceType::kCPU, [](KernelContext& ctx) {
                  *ctx.output<int64_t>(0) = reinterpret_cast<int64_t>(ctx.raw_input(0));
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)registered;
}

int64_t AddressOf(const Tensor& t) {
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("AddressOf", {t});
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return 0;
  absl::StatusOr<int64_t> a = (*r)[0].Item<int64_t>();
  EXPECT_TRUE(a.ok()) << a.status();
  return a.value_or(0);
}

TEST(MemoryCrossStream, ReleaseWaitsForAReaderOnAnotherStream) {
  RegisterOps();
  constexpr int64_t kN = 65536;  // 256 KiB
  StreamScope on0(S(0));
  Tensor t = Full({kN}, 1.0f, DType::kFloat32);
  const int64_t t_address = AddressOf(t);
  ASSERT_NE(t_address, 0);

  Tensor copy;
  {
    StreamScope on1(S(1));
    absl::StatusOr<std::vector<Tensor>> r = ops::Call("GatedCopy", {t});
    ASSERT_TRUE(r.ok()) << r.status();
    copy = (*r)[0];
  }
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (!reader_started && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(reader_started);

  t = Tensor();  // the last handle: its ReleaseTensor goes to stream 0
  // Stream 0 keeps allocating tensors of the same size and overwriting them.
  std::vector<Tensor> fresh;
  for (int i = 0; i < 4; ++i) {
    fresh.push_back(Full({kN}, 2.0f, DType::kFloat32));
    ASSERT_TRUE(ops::MulScalarInplace(fresh.back(), 3).ok());
  }
  for (const Tensor& f : fresh) {
    ASSERT_TRUE(f.Wait().ok());
    EXPECT_NE(AddressOf(f), t_address) << "reused while stream 1 still reads it";
  }
  reader_may_finish = true;
  absl::StatusOr<std::vector<float>> v = copy.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<float>(kN, 1.0f));

  // Control: once the read is done the memory is free on stream 0 and the
  // next tensor of that size gets it (so the check above could have failed).
  ASSERT_TRUE(Sync().ok());
  Tensor again = Full({kN}, 5.0f, DType::kFloat32);
  EXPECT_EQ(AddressOf(again), t_address);
  ASSERT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
