// The window storage_lifetime_shutdown_test only races for, forced: a kernel
// still runs after VirtualMachine::Shutdown() has stopped accepting, and the
// last handle of the storage it writes is dropped then. The VM refuses that
// release (it is closed); the refused instruction must keep the storage
// alive until the scheduler has stopped (SubmissionQueue::RecycleRefused),
// because the running kernel's instruction names the storage without owning
// it and touches it when the kernel returns. Freed at the refusal, that is a
// heap-use-after-free under ASan. Its own process: shutdown is for good.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

std::atomic<bool> g_started{false};
std::atomic<bool> g_gate0{false};  // holds the kernel Shutdown()'s drain waits for
std::atomic<bool> g_gate1{false};  // holds the kernel that outlives the drain

absl::StatusOr<std::vector<TensorMeta>> NoOutputs(const std::vector<TensorMeta>&, const Attrs&) {
  return std::vector<TensorMeta>{};
}

// Waits for `pred` for up to 20 s; false on time-out (the test then fails
// instead of hanging).
template <typename Pred>
bool WaitFor(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(RefusedRelease, KeepsTheStorageOfWorkStillRunningAfterTheClose) {
  OpOptions in_place;
  in_place.mutated_inputs = {0};
  // GatedIncrement(x) {gate}: waits for gate 0 or 1, then adds 1 to x in place
  // (a mutated input: OpCallPolicy touches x's storage again after the kernel).
  ASSERT_TRUE(RegisterOp("GatedIncrement", NoOutputs, in_place).ok());
  ASSERT_TRUE(RegisterKernel("GatedIncrement", DeviceType::kCPU, [](KernelContext& ctx) {
                const bool first = std::get<int64_t>(ctx.attrs().at("gate")) == 0;
                std::atomic<bool>& gate = first ? g_gate0 : g_gate1;
                if (first) g_started.store(true);
                while (!gate.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
                float* x = ctx.mutable_input<float>(0);
                for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) x[i] += 1;
                return absl::OkStatus();
              }).ok());
  auto gated = [](const Tensor& x, int64_t gate) {
    return ops::Call("GatedIncrement", {x}, Attrs{{"gate", gate}}).status();
  };
  VirtualMachine& vm = VirtualMachine::Get();
  Tensor probe = Full({1}, 0.0f, DType::kFloat32);
  Tensor x0 = Full({64}, 0.0f, DType::kFloat32);
  ASSERT_TRUE(gated(x0, 0).ok());  // Shutdown()'s drain will wait for it
  ASSERT_TRUE(WaitFor([] { return g_started.load(); }));

  // Shutdown() drains what was received before it (its barrier), then closes.
  const uint64_t received = vm.GetStats().received;
  absl::Status shutdown;
  std::thread closer([&] { shutdown = vm.Shutdown(); });
  ASSERT_TRUE(WaitFor([&] { return vm.GetStats().received > received; }));  // the barrier

  // Received after the barrier: the drain does not wait for it, so it is
  // still held at its gate when the VM closes.
  Tensor x = Full({64}, 0.0f, DType::kFloat32);
  {
    StreamScope other(Stream(Device::Cpu(), 1));  // its own worker: x0's holds gate 0
    ASSERT_TRUE(gated(x, 1).ok());
  }
  g_gate0.store(true);  // the drain ends; the VM closes
  ASSERT_TRUE(WaitFor([&] {
    const absl::Status s = ops::AddInplace(probe, probe);
    return s.code() == absl::StatusCode::kFailedPrecondition;
  }));

  // The last handle of x goes while its kernel is still held: its release
  // is refused (the VM is closed) and must free nothing until the scheduler
  // has stopped, after the kernel has returned and touched x's storage.
  x = Tensor();
  g_gate1.store(true);
  closer.join();
  EXPECT_TRUE(shutdown.ok()) << shutdown;
  EXPECT_TRUE(vm.IsShutDown());
}

}  // namespace
}  // namespace eagervm
