// Static teardown and cross-thread lifetime (docs/reliability.md). A plain
// program (its own main, no gtest): ctest checks the exit status and the
// last line, printed by the last atexit handler to run.
//
// Exit order (atexit handlers and static destructors, reverse order of
// registration): [static made after the VM: ops work] [handler registered
// after the VM: ops work] [the VM's drain and shutdown] [static made before
// the VM, handler registered before it: ops fail cleanly, drops are no-ops].
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace {

using eagervm::Tensor;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "teardown_test: FAILED: %s\n", what);
  std::_Exit(1);
}

// y = x * 2 + 1, read back; on a VM that is gone: the error, never a crash.
absl::StatusOr<float> Compute(float x) {
  Tensor t = eagervm::ops::AddScalar(
      eagervm::ops::MulScalar(eagervm::Full({1}, x, eagervm::DType::kFloat32), 2), 1);
  return t.Item<float>();
}

void ExpectRefused(const char* where) {
  absl::StatusOr<float> v = Compute(3);
  if (v.ok() || v.status().code() != absl::StatusCode::kFailedPrecondition) Fail(where);
  if (eagervm::Sync().code() != absl::StatusCode::kFailedPrecondition) Fail(where);
}

void ExpectWorks(const char* where) {
  absl::StatusOr<float> v = Compute(3);
  if (!v.ok() || *v != 7) Fail(where);
}

// Destroyed after the VM shut down (made before it): a drop is a no-op, an op fails.
struct BeforeVm {
  Tensor held;
  ~BeforeVm() {
    ExpectRefused("an op from a static destructor after shutdown");
    held = Tensor();  // the drop of a computed tensor after shutdown
    std::fprintf(stderr, "teardown_test: all checks passed\n");  // the last thing at exit
  }
};
BeforeVm before_vm;
Tensor static_tensor;  // assigned later, destroyed after the shutdown

void LastHandler() {  // registered first: runs last
  ExpectRefused("an op from an atexit handler after shutdown");
}

void HandlerBeforeShutdown() { ExpectWorks("an op from an atexit handler before shutdown"); }

struct AfterVm {
  Tensor held;
  ~AfterVm() {
    auto v = held.Item<float>();  // still there: the VM shuts down later
    if (!v.ok() || *v != 11) Fail("a tensor read in a static destructor before shutdown");
    ExpectWorks("an op from a static destructor before shutdown");
  }
};

}  // namespace

int main() {
  using namespace eagervm;
  std::atexit(LastHandler);
  before_vm.held = Full({1}, 5, DType::kFloat32);  // creates the VM
  static_tensor = ops::AddScalar(before_vm.held, 1);
  std::atexit(HandlerBeforeShutdown);
  static AfterVm after_vm;
  after_vm.held = ops::AddScalar(Full({1}, 5, DType::kFloat32), 6);

  // Tensors made on one thread and dropped on another, while a third reads.
  constexpr int kTensors = 2000;
  std::vector<Tensor> made(kTensors);
  std::thread maker([&] {
    for (int i = 0; i < kTensors; ++i) made[i] = ops::AddScalar(Full({16}, i, DType::kFloat32), 1);
  });
  maker.join();
  std::atomic<bool> wrong{false};
  std::thread reader([&] {
    for (int i = 0; i < kTensors; i += 97) {
      auto v = ops::Sum(made[i]).Item<float>();
      if (!v.ok() || *v != 16.0f * (i + 1)) wrong = true;
    }
  });
  reader.join();
  std::thread dropper([&] { made.clear(); });
  dropper.join();
  if (wrong) Fail("a tensor made on one thread read on another");

  // Concurrent Sync from many threads while others submit.
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &wrong] {
      Tensor acc = Full({4}, 0, DType::kFloat32);
      for (int i = 0; i < 300; ++i) {
        acc = ops::AddScalar(acc, 1);
        if (i % 50 == t % 50 && !Sync().ok()) wrong = true;
      }
      auto v = ops::Sum(acc).Item<float>();
      if (!v.ok() || *v != 1200) wrong = true;
      if (!Sync().ok()) wrong = true;
    });
  }
  for (auto& th : threads) th.join();
  if (wrong) Fail("concurrent Sync while other threads submit");
  return 0;  // the rest happens at exit
}
