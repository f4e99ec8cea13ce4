// Returning from main with thousands of slow ops still queued must exit 0:
// the VM drains them at exit, then joins its threads (no hang, no crash).
// A plain program (its own main, no gtest): ctest checks the exit status.
//
// An atexit handler registered before the VM first exists runs after the VM's
// drain (atexit handlers run in reverse order) and checks that every op ran.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace {

constexpr int kOps = 4000;
std::atomic<int> ran{0};
eagervm::Tensor static_tensor;               // destroyed after the VM shut down
thread_local eagervm::Tensor thread_tensor;  // destroyed before the VM drains

void CheckDrained() {
  const int n = ran.load();
  if (n != kOps) {
    std::fprintf(stderr, "exit_with_work_test: %d of %d queued ops ran before exit\n", n, kOps);
    std::_Exit(1);
  }
  std::fprintf(stderr, "exit_with_work_test: all %d queued ops ran before exit\n", n);
}

}  // namespace

int main() {
  using namespace eagervm;
  std::atexit(CheckDrained);  // before the VM exists: runs after its atexit drain
  OpOptions mutates0;
  mutates0.mutated_inputs = {0};
  if (!RegisterOp(
           "Tick",
           [](const std::vector<TensorMeta>&, const Attrs&)
               -> absl::StatusOr<std::vector<TensorMeta>> { return std::vector<TensorMeta>{}; },
           mutates0)
           .ok() ||
      !RegisterKernel("Tick", DeviceType::kCPU, [](KernelContext& ctx) {
         std::this_thread::sleep_for(std::chrono::microseconds(100));
         ctx.mutable_input<int64_t>(0)[0] += 1;
         ran.fetch_add(1, std::memory_order_relaxed);
         return absl::OkStatus();
       }).ok()) {
    std::fprintf(stderr, "registration failed\n");
    return 1;
  }
  std::vector<Tensor> counters;
  for (int s = 0; s < 2; ++s) {
    StreamScope scope(Stream(Device::Cpu(), s));
    counters.push_back(Full({1}, 0, DType::kInt64));
  }
  for (int i = 0; i < kOps; ++i) {
    StreamScope scope(Stream(Device::Cpu(), i % 2));
    if (!ops::Call("Tick", {counters[i % 2]}).ok()) return 1;
  }
  static_tensor = counters[0];
  thread_tensor = counters[1];
  // Some tensors dropped mid-flight, some kept in statics: return without Sync.
  return 0;
}
