// Order across CUDA streams and devices (needs a GPU; skips otherwise):
//  - a consumer on stream 1 of what a slow producer on stream 0 writes must
//    see the value: this fails if the device-side wait (cudaStreamWaitEvent)
//    were missing, because the consumer is launched before the producer ends;
//  - the host does not wait for it: the consumer is dispatched while the
//    producer still runs;
//  - Sync() means the device work is finished;
//  - a random program over CPU and two CUDA streams, with tensors moving
//    between them, gives the values of a sequential reference.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

#ifdef EAGERVM_WITH_CUDA
#include <cuda_runtime_api.h>

#include "kernels/cuda/launchers.h"
#endif

namespace eagervm {
namespace {

using testing_cuda::kGpu;

// ~0.2 s at 1.5-2 GHz: far longer than launching the rest of the test.
constexpr int64_t kSlowCycles = 400'000'000;

void RegisterSlowFill() {
  static const bool once = [] {
    // SlowFillInplace(x, value): spins on the device, then x[:] = value.
    OpOptions o;
    o.mutated_inputs = {0};
    (void)RegisterOp(
        "TestSlowFillInplace",
        [](const std::vector<TensorMeta>&, const Attrs&)
            -> absl::StatusOr<std::vector<TensorMeta>> { return std::vector<TensorMeta>{}; },
        o);
    (void)RegisterKernel(
        "TestSlowFillInplace", DeviceType::kCUDA, [](KernelContext& ctx) -> absl::Status {
#ifdef EAGERVM_WITH_CUDA
          const float value = static_cast<float>(std::get<double>(ctx.attrs().at("value")));
          cudaError_t e = kernels::cuda::LaunchSpinThenFill(
              ctx.mutable_input<float>(0), ctx.input_meta(0).shape.numel(), value, kSlowCycles,
              static_cast<cudaStream_t>(ctx.cuda_stream()));
          return e == cudaSuccess ? absl::OkStatus() : absl::InternalError(cudaGetErrorString(e));
#else
      return absl::UnimplementedError("built without CUDA");
#endif
        });
    return true;
  }();
  (void)once;
}

absl::Status FromCuda(int e) {
#ifdef EAGERVM_WITH_CUDA
  return e == cudaSuccess ? absl::OkStatus()
                          : absl::InternalError(cudaGetErrorString(static_cast<cudaError_t>(e)));
#else
  return absl::UnimplementedError("built without CUDA");
#endif
}

// The test ops of the review tests (issue 14), CUDA kernels only:
//  TestSlowCopy(x) -> y: spins ~kSlowCycles, then y = x (a slow reader of x);
//  TestFail(x) -> y: fails (y carries the error);
//  TestTrap(x): a kernel that traps (a sticky device fault);
//  TestFailingMemcpy(x) -> y: a cudaMemcpyAsync with a bad direction fails,
//    leaving the thread's CUDA error set; the kernel reports it.
void RegisterReviewOps() {
  static const bool once = [] {
    auto same = [](const std::vector<TensorMeta>& in,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{in.at(0)};
    };
    auto none = [](const std::vector<TensorMeta>&,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{};
    };
    (void)RegisterOp("TestSlowCopy", same);
    (void)RegisterKernel("TestSlowCopy", DeviceType::kCUDA, [](KernelContext& ctx) {
#ifdef EAGERVM_WITH_CUDA
      return FromCuda(kernels::cuda::LaunchSpinThenCopy(
          ctx.output<float>(0), ctx.input<float>(0), ctx.input_meta(0).shape.numel(), kSlowCycles,
          static_cast<cudaStream_t>(ctx.cuda_stream())));
#else
      return FromCuda(1);
#endif
    });
    (void)RegisterOp("TestFail", same);
    (void)RegisterKernel("TestFail", DeviceType::kCUDA, [](KernelContext&) {
      return absl::InternalError("TestFail fails on purpose");
    });
    OpOptions mutating;
    mutating.mutated_inputs = {0};
    (void)RegisterOp("TestTrap", none, mutating);
    (void)RegisterKernel("TestTrap", DeviceType::kCUDA, [](KernelContext& ctx) {
#ifdef EAGERVM_WITH_CUDA
      return FromCuda(kernels::cuda::LaunchTrap(static_cast<cudaStream_t>(ctx.cuda_stream())));
#else
      return FromCuda(1);
#endif
    });
    (void)RegisterOp("TestFailingMemcpy", same);
    (void)RegisterKernel("TestFailingMemcpy", DeviceType::kCUDA, [](KernelContext& ctx) {
#ifdef EAGERVM_WITH_CUDA
      cudaError_t e =
          cudaMemcpyAsync(ctx.raw_output(0), ctx.raw_input(0), 16, static_cast<cudaMemcpyKind>(77),
                          static_cast<cudaStream_t>(ctx.cuda_stream()));
      return e == cudaSuccess ? absl::InternalError("the bad cudaMemcpyAsync succeeded?")
                              : FromCuda(e);
#else
      return FromCuda(1);
#endif
    });
    return true;
  }();
  (void)once;
}

class CudaStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    EAGERVM_REQUIRE_CUDA();
    RegisterSlowFill();
    RegisterReviewOps();
  }
};

Tensor SlowCopy(const Tensor& x) {
  absl::StatusOr<std::vector<Tensor>> out = ops::Call("TestSlowCopy", {x});
  return out.ok() ? (*out)[0] : Tensor::Error(out.status());
}

void ExpectAll(const Tensor& t, float value) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  for (size_t i = 0; i < v->size(); ++i) ASSERT_EQ((*v)[i], value) << "at " << i;
}

constexpr int64_t kN = 1 << 16;

TEST_F(CudaStreams, WriteAfterReadAcrossStreamsWaitsForASlowReader) {
  Tensor x = Full({kN}, 1.0f, DType::kFloat32, kGpu);  // stream 0
  Tensor y;
  {
    StreamScope scope(Stream(kGpu, 1));
    y = SlowCopy(x);  // reads x on stream 1 for ~0.2 s
  }
  ASSERT_TRUE(ops::FillInplace(x, 2).ok());  // stream 0 overwrites x: must wait for the reader
  ExpectAll(y, 1.0f);
  ExpectAll(x, 2.0f);
}

TEST_F(CudaStreams, DroppingATensorAnotherStreamStillReadsThenReusingItsMemory) {
  Tensor x = Full({kN}, 1.0f, DType::kFloat32, kGpu);  // stream 0 allocates x
  ASSERT_TRUE(x.Wait().ok());
  Tensor y;
  {
    StreamScope scope(Stream(kGpu, 1));
    y = SlowCopy(x);
  }
  x = Tensor();  // released on stream 0 while stream 1 still reads it
  // Same size on the same stream: the pool hands back x's block if it may.
  Tensor z = Full({kN}, 5.0f, DType::kFloat32, kGpu);
  ExpectAll(y, 1.0f);
  ExpectAll(z, 5.0f);
}

// C1: y's first write fails before allocating (a poisoned input), so y's
// release goes to stream 0 while its memory comes from the H2D stream
// (CopyInto from the CPU). A slow reader on stream 1, then drop y, then an
// upload of the same size on the H2D stream: it must not overwrite y's block
// before the reader is done.
TEST_F(CudaStreams, FreeAfterAFailedFirstWriteIsOrderedAfterReadersOnOtherStreams) {
  Tensor a = Full({kN}, 1.0f, DType::kFloat32, kGpu);
  absl::StatusOr<std::vector<Tensor>> failed = ops::Call("TestFail", {a});
  ASSERT_TRUE(failed.ok()) << failed.status();
  Tensor y = ops::AddScalar((*failed)[0], 1.0f);  // stream 0: skipped, y unallocated
  EXPECT_FALSE(y.Wait().ok());
  ASSERT_TRUE(ops::CopyInto(y, Full({kN}, 3.0f, DType::kFloat32)).ok());  // H2D allocates y
  ASSERT_TRUE(y.Wait().ok()) << "a successful write heals y";
  Tensor z;
  {
    StreamScope scope(Stream(kGpu, 1));
    z = SlowCopy(y);
  }
  y = Tensor();
  Tensor w = Full({kN}, 9.0f, DType::kFloat32).To(kGpu);  // H2D allocation of the same size
  ExpectAll(z, 3.0f);
  ExpectAll(w, 9.0f);
  (void)Sync();
}

// L2: a failed non-launch CUDA call leaves the thread's error set; the next,
// unrelated launch must not report it.
TEST_F(CudaStreams, AFailedMemcpyDoesNotPoisonTheNextLaunch) {
  Tensor x = Full({16}, 1.0f, DType::kFloat32, kGpu);
  absl::StatusOr<std::vector<Tensor>> bad = ops::Call("TestFailingMemcpy", {x});
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_FALSE((*bad)[0].Wait().ok());
  (void)Sync();  // reports the failure once
  Tensor y = ops::AddScalar(Full({16}, 2.0f, DType::kFloat32, kGpu), 1.0f);
  ExpectAll(y, 3.0f);
  EXPECT_TRUE(Sync().ok());
}

// C5: after an asynchronous device fault every later sync point reports an
// error, never OK with stale bytes. The fault kills the CUDA context, so it
// runs in a child process (a death test re-runs this binary with only this
// test), which exits 0 only if every check held (else the number of the
// first failed check).
int TrapThenCheckEverySyncPoint() {
  Tensor x = Full({1024}, 1.0f, DType::kFloat32, kGpu);
  Tensor cpu = Zeros({1024}, DType::kFloat32);
  if (!x.Wait().ok() || !cpu.Wait().ok()) return 10;
  Tensor victim = Zeros({16}, DType::kFloat32, kGpu);
  if (!ops::Call("TestTrap", {victim}).ok()) return 11;
  // Computed behind the trap on the same stream: never runs, never read.
  Tensor after = ops::AddScalar(x, 0.0f);
  if (after.Slice(0, 1).Reshape({}).Item<float>().ok()) return 1;
  if (after.ToVector<float>().ok()) return 2;
  if (after.Wait().ok()) return 3;
  absl::Status copy = ops::CopyInto(cpu, after);
  if (copy.ok() && cpu.ToVector<float>().ok()) return 4;
  if (Sync().ok()) return 5;
  // x was finished before the trap, and its reads skip the queue
  // (StreamPolicy::ReadFinalToHost); once the fault is known they fail too.
  if (x.Slice(0, 1).Reshape({}).Item<float>().ok()) return 14;
  if (x.ToVector<float>().ok()) return 15;
  if (x.Wait().ok()) return 16;
  Tensor later = ops::AddScalar(x, 1.0f);  // new work after the fault fails too
  if (Sync().ok()) return 6;
  if (later.Wait().ok()) return 7;
  // Fresh device-to-host results after the fault: an error, never bytes.
  Tensor fresh = x.To(Device::Cpu());
  if (fresh.ToVector<float>().ok()) return 8;
  if (ops::AddScalar(fresh, 1.0f).ToVector<float>().ok()) return 9;
  // A user's read callback on x is staged through a fresh CPU stand-in (a
  // D2H copy): it must not run with stale bytes.
  bool called = false;
  absl::Status staged = vm::PhysicalRun([&](vm::InstructionsBuilder* b) -> absl::Status {
    return b->AccessBlobByCallback(
        x, [&](void*, size_t) { called = true; }, vm::AccessMode::kRead);
  });
  (void)Sync();
  if (staged.ok() && called) return 13;
  return 0;
}

// A fresh device-to-host copy (x.To(cpu): a DMA straight into a new pinned
// tensor) in flight when another stream's kernel faults: the DMA may stop
// part way, and its event query then fails. The new tensor must report the
// error; if it reads OK, every byte must be right (the pinned block was
// recycled from a tensor of 2s, so stale bytes show).
int FaultDuringAFreshDeviceToHostCopy() {
  constexpr int64_t kBig = int64_t{1} << 26;  // 256 MiB: the DMA takes milliseconds
  Tensor x = Full({kBig}, 1.0f, DType::kFloat32, kGpu);
  {
    Tensor twos = Full({kBig}, 2.0f, DType::kFloat32, kGpu).To(Device::Cpu());
    if (!twos.Wait().ok() || !x.Wait().ok()) return 10;
  }  // its pinned block goes back to the D2H stream's pool
  Tensor victim = Zeros({16}, DType::kFloat32, kGpu);
  if (!victim.Wait().ok()) return 11;
  if (!ops::Call("TestTrap", {victim}).ok()) return 12;  // stream 0
  Tensor host = x.To(Device::Cpu());                     // the D2H copy stream
  absl::StatusOr<std::vector<float>> v = host.ToVector<float>();
  if (v.ok()) {
    for (float f : *v) {
      if (f != 1.0f) return 1;  // stale bytes with an OK status
    }
  }
  absl::StatusOr<std::vector<float>> w = ops::AddScalar(host, 1.0f).ToVector<float>();
  if (w.ok()) {
    for (float f : *w) {
      if (f != 2.0f) return 2;  // a CPU op computed on stale bytes
    }
  }
  if (Sync().ok()) return 3;
  return 0;
}

TEST_F(CudaStreams, AFreshDeviceToHostResultCarriesADeviceFault) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(FaultDuringAFreshDeviceToHostCopy()), ::testing::ExitedWithCode(0), "");
}

TEST_F(CudaStreams, AfterADeviceFaultEverySyncPointReportsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(TrapThenCheckEverySyncPoint()), ::testing::ExitedWithCode(0), "");
}

// Exit (std::exit, so the atexit Shutdown drains) with CUDA work queued: the
// process ends, with status 0, and does not hang.
TEST_F(CudaStreams, ExitWithQueuedCudaWork) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Tensor x = Zeros({kN}, DType::kFloat32, kGpu);
        (void)ops::Call("TestSlowFillInplace", {x}, {{"value", 1.0}});
        for (int i = 0; i < 200; ++i) (void)ops::MulScalarInplace(x, 1.0f);
        Tensor host = x.To(Device::Cpu());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(CudaStreams, ConsumerOnAnotherStreamWaitsForASlowProducerOnTheDevice) {
  Tensor x = Zeros({1 << 16}, DType::kFloat32, kGpu);  // stream 0
  ASSERT_TRUE(x.Wait().ok());
  const uint64_t dispatched_before = VirtualMachine::Get().GetStats().dispatched;
  ASSERT_TRUE(ops::Call("TestSlowFillInplace", {x}, {{"value", 7.0}}).ok());
  Tensor y;
  {
    StreamScope scope(Stream(kGpu, 1));
    y = ops::AddScalar(x, 1.0f);  // reads x on stream 1
  }
  ASSERT_TRUE(y.ok()) << y.status();
  // Both are launched long before the producer finishes: the host does not wait.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (VirtualMachine::Get().GetStats().dispatched < dispatched_before + 2 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_GE(VirtualMachine::Get().GetStats().dispatched, dispatched_before + 2)
      << "the consumer was not launched while the producer ran: a host wait?";
  absl::StatusOr<std::vector<float>> v = y.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  for (size_t i = 0; i < v->size(); i += 997) ASSERT_EQ((*v)[i], 8.0f) << "at " << i;
}

TEST_F(CudaStreams, TheOtherDirectionStream1ToStream0AlsoWaits) {
  // y is written slowly on stream 1, then x += y on stream 0 must see it.
  Tensor y = Zeros({1024}, DType::kFloat32, kGpu);
  Tensor x = Full({1024}, 1.0f, DType::kFloat32, kGpu);
  {
    StreamScope scope(Stream(kGpu, 1));
    ASSERT_TRUE(ops::Call("TestSlowFillInplace", {y}, {{"value", 5.0}}).ok());
  }
  ASSERT_TRUE(ops::AddInplace(x, y).ok());  // stream 0
  absl::StatusOr<std::vector<float>> v = x.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)[0], 6.0f);
  EXPECT_EQ((*v)[1023], 6.0f);
}

TEST_F(CudaStreams, SyncMeansTheDeviceIsDone) {
  Tensor x = Zeros({256}, DType::kFloat32, kGpu);
  ASSERT_TRUE(ops::Call("TestSlowFillInplace", {x}, {{"value", 3.0}}).ok());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(Sync().ok());
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GT(waited, std::chrono::milliseconds(20))
      << "Sync() returned before the slow kernel ended";
#ifdef EAGERVM_WITH_CUDA
  EXPECT_EQ(cudaStreamQuery(static_cast<cudaStream_t>(Stream::Default(kGpu).native_handle())),
            cudaSuccess);
#endif
}

// A host read of a CUDA tensor whose writes have all completed is answered
// on the reading thread by a copy on a stream of its own
// (StreamPolicy::ReadFinalToHost) when the engine lock is free at once, else
// queued on the tensor's stream (so how long it waits is not asserted: the
// H200 showed both). Either way it must give the right bytes, and never
// bytes a write still in flight will change.
TEST_F(CudaStreams, ReadsOfFinishedTensorsAreRightAndNeverSkipAWriteInFlight) {
  Tensor done = Full({1 << 16}, 4.0f, DType::kFloat32, kGpu);  // 256 KiB: read unstaged
  Tensor small = Full({3}, 2.0f, DType::kFloat32, kGpu);
  ASSERT_TRUE(done.Wait().ok());
  ASSERT_TRUE(small.Wait().ok());
  Tensor busy = Zeros({256}, DType::kFloat32, kGpu);
  ASSERT_TRUE(ops::Call("TestSlowFillInplace", {busy}, {{"value", 9.0}}).ok());  // stream 0
  absl::StatusOr<float> v = small.Slice(0, 1, 2).Reshape({}).Item<float>();
  absl::StatusOr<std::vector<float>> all = done.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*v, 2.0f);
  for (size_t i = 0; i < all->size(); i += 1009) ASSERT_EQ((*all)[i], 4.0f) << "at " << i;
  // The slow write is in flight: its reader sees the written value.
  absl::StatusOr<std::vector<float>> b = busy.ToVector<float>();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0], 9.0f);
  EXPECT_EQ((*b)[255], 9.0f);
  // Writes and reads alternating: every read sees the write before it.
  for (int i = 1; i <= 200; ++i) {
    ASSERT_TRUE(ops::FillInplace(small, static_cast<float>(i)).ok());
    if (i % 7 == 0) ASSERT_TRUE(ops::Call("TestSlowFillInplace", {busy}, {{"value", 1.0}}).ok());
    absl::StatusOr<float> s = small.Slice(0, 2, 3).Reshape({}).Item<float>();
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_EQ(*s, static_cast<float>(i)) << "after write " << i;
  }
  EXPECT_TRUE(Sync().ok());
}

TEST_F(CudaStreams, IdleVmWithCudaStreamsStopsPolling) {
  Tensor x = Full({16}, 2.0f, DType::kFloat32, kGpu);
  ASSERT_TRUE(x.Wait().ok());
  ASSERT_TRUE(Sync().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const VmStats a = VirtualMachine::Get().GetStats();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const VmStats b = VirtualMachine::Get().GetStats();
  EXPECT_EQ(a.scheduler_wakeups, b.scheduler_wakeups) << "the scheduler kept waking while idle";
}

// The differential program: slots hold tensors that move between the CPU and
// two CUDA streams; every op is mirrored on plain vectors. Values are small
// integers in float32, so every result is exact.
TEST_F(CudaStreams, RandomProgramsAcrossCpuAndTwoCudaStreamsMatchASequentialReference) {
  constexpr int kSlots = 6, kSteps = 300, kN = 257;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Tensor> t(kSlots);
    std::vector<std::vector<float>> ref(kSlots, std::vector<float>(kN));
    auto place = [&](int where) { return where == 0 ? Device::Cpu() : kGpu; };
    for (int s = 0; s < kSlots; ++s) {
      t[s] = Full({kN}, static_cast<float>(s), DType::kFloat32, place(s % 2));
      std::fill(ref[s].begin(), ref[s].end(), static_cast<float>(s));
    }
    for (int step = 0; step < kSteps; ++step) {
      const int a = static_cast<int>(rng() % kSlots), b = static_cast<int>(rng() % kSlots);
      const int stream = static_cast<int>(rng() % 2);
      StreamScope scope(Stream(kGpu, stream));
      switch (rng() % 6) {
        case 0:  // move a to the other device
          t[a] = t[a].To(t[a].device().is_cpu() ? kGpu : Device::Cpu());
          break;
        case 1:  // a += b (b brought to a's device)
          ASSERT_TRUE(ops::AddInplace(t[a], t[b].To(t[a].device())).ok());
          for (int i = 0; i < kN; ++i) ref[a][i] += ref[b][i];
          break;
        case 2:  // a = -a, keeps values bounded
          ASSERT_TRUE(ops::MulScalarInplace(t[a], -1).ok());
          for (float& x : ref[a]) x = -x;
          break;
        case 3:  // a = b + b on b's device
          t[a] = ops::Add(t[b], t[b]);
          for (int i = 0; i < kN; ++i) ref[a][i] = ref[b][i] * 2;
          if (std::abs(ref[a][0]) > 1e6) {  // keep exact in float32
            ASSERT_TRUE(ops::FillInplace(t[a], 1).ok());
            std::fill(ref[a].begin(), ref[a].end(), 1.0f);
          }
          break;
        case 4:  // a[:] = b across devices
          ASSERT_TRUE(ops::CopyInto(t[a], t[b]).ok());
          ref[a] = ref[b];
          break;
        case 5:  // a host read in the middle
          ASSERT_EQ(*t[a].Slice(3, 4).Reshape({}).Item<float>(), ref[a][3])
              << "seed " << seed << " step " << step;
          break;
      }
    }
    for (int s = 0; s < kSlots; ++s) {
      absl::StatusOr<std::vector<float>> v = t[s].ToVector<float>();
      ASSERT_TRUE(v.ok()) << v.status();
      ASSERT_EQ(*v, ref[s]) << "seed " << seed << " slot " << s << " on " << t[s].device();
    }
    ASSERT_TRUE(Sync().ok());
  }
}

}  // namespace
}  // namespace eagervm
