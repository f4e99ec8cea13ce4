// BlockUntil: what a blocking host callback in a test does: wait (polling
// every ms) until the test thread sets `flag`, at most `limit`. Returns false
// on timeout, i.e. when the work the test thread had to finish first could
// not run while the callback blocked.
#ifndef EAGERVM_TESTS_BLOCK_UNTIL_H_
#define EAGERVM_TESTS_BLOCK_UNTIL_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "eagervm/instructions_builder.h"
#include "eagervm/virtual_machine.h"

namespace eagervm::testing {

inline bool BlockUntil(const std::atomic<bool>& flag, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Holds the current stream of `t`'s device: queues a read of `t` whose
// callback blocks until `release` (at most 20 s, then sets `timed_out`).
// Everything queued on that stream after it waits behind it.
inline absl::Status HoldStream(const Tensor& t, std::atomic<bool>& release,
                               std::atomic<bool>& timed_out) {
  return vm::PhysicalRun([&](vm::InstructionsBuilder* b) {
    return b->AccessBlobByCallback(
        t,
        [&release, &timed_out](void*, size_t) {
          if (!BlockUntil(release, std::chrono::seconds(20))) timed_out = true;
        },
        vm::AccessMode::kRead);
  });
}

// The opener of a held stream: waits until a submitter has begun a
// back-pressure wait (VmStats::backpressure_waits passed `waits_before`,
// counted when a wait begins), then sets `release`. No sleep decides it: the
// stream is opened because back-pressure happened, so a test that asserts
// back-pressure holds on any machine. Gives up (and opens) after `limit`.
inline std::thread OpenWhenBackPressured(std::atomic<bool>& release, uint64_t waits_before,
                                         std::chrono::seconds limit = std::chrono::seconds(20)) {
  return std::thread([&release, waits_before, limit] {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (VirtualMachine::Get().GetStats().backpressure_waits <= waits_before &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    release = true;
  });
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_BLOCK_UNTIL_H_
