// BlockUntil: what a blocking host callback in a test does: wait (polling
// every ms) until the test thread sets `flag`, at most `limit`. Returns false
// on timeout, i.e. when the work the test thread had to finish first could
// not run while the callback blocked.
#ifndef EAGERVM_TESTS_BLOCK_UNTIL_H_
#define EAGERVM_TESTS_BLOCK_UNTIL_H_

#include <atomic>
#include <chrono>
#include <thread>

namespace eagervm::testing {

inline bool BlockUntil(const std::atomic<bool>& flag, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_BLOCK_UNTIL_H_
