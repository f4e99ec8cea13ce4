// Fork safety (docs/reliability.md): fork() with work in flight, from a
// kernel, and from a thread that never used the VM. The child must compute
// correctly on a fresh VM and exit within a timeout; the parent carries on.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

// Exit codes of the children: 0 is success, each failure its own number.
enum ChildExit {
  kOk = 0,
  kWrongValue = 10,
  kOpFailed,
  kParentTensorAccepted,
  kCudaAccepted,
  kParentGraphAccepted
};

// Waits up to `timeout` for `pid`; kills it and fails on a hang. Returns its
// exit code (-1 if it did not exit normally).
int WaitChild(pid_t pid, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "the forked child hung (killed after " << timeout.count() << " s)";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#if defined(__SANITIZE_THREAD__)
constexpr bool kTsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kTsan = true;
#else
constexpr bool kTsan = false;
#endif
#else
constexpr bool kTsan = false;
#endif

// GCC 12's and Clang 14's ASan runtimes register no fork handlers (LLVM
// added them in 18): a child forked while another thread of the parent is
// inside the sanitizer's malloc or free (a lock of its allocator or
// quarantine held) hangs at its first allocation. Where the parent's VM
// threads may still be working when fork() is called (a kernel forking, a
// thread that never submitted: no drain), the ASan child does only what
// allocates nothing; the release run checks all of it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

// What every child checks: ops on a fresh VM compute exactly, and a tensor
// from the parent (if given) is refused with a clear error. Under TSan only
// what needs no new thread: TSan cannot follow a child of a multi-threaded
// parent that starts threads (it dies with "dup thread with used id"); the
// release run checks everything, the ASan run all but kAsan's cases.
int ChildWork(const Tensor* from_parent) {
  if (kTsan) return from_parent != nullptr && from_parent->ok() ? kParentTensorAccepted : kOk;
  Tensor a = FromVector<float>({1, 2, 3, 4}, {4});
  Tensor b = a;
  for (int i = 0; i < 100; ++i) b = ops::Add(b, a);  // b = 101 * a
  auto v = ops::Sum(b).Item<float>();
  if (!v.ok()) return kOpFailed;
  if (*v != 1010) return kWrongValue;
  if (!Sync().ok()) return kOpFailed;
  if (from_parent != nullptr) {
    if (from_parent->ok()) return kParentTensorAccepted;
    Tensor c = ops::Add(*from_parent, *from_parent);
    if (c.ok() || c.status().code() != absl::StatusCode::kFailedPrecondition ||
        c.status().message().find("fork()") == std::string::npos) {
      return kParentTensorAccepted;
    }
  }
  Tensor g = FromVector<float>({1}, {1}, Device::Cuda(0));
  if (g.ok() || g.status().message().find("fork()") == std::string::npos) return kCudaAccepted;
  return kOk;
}

// A chain long enough to be in flight when fork() is called.
Tensor LongChain(int n) {
  Tensor t = Zeros({256}, DType::kFloat32);
  for (int i = 0; i < n; ++i) t = ops::AddScalar(t, 1);
  return t;
}

TEST(Fork, WithWorkInFlightTheChildComputesAndExits) {
  Tensor t = LongChain(20000);  // no Sync: still running
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) std::exit(ChildWork(&t));  // exit(): atexit shuts the child's VM down
  EXPECT_EQ(WaitChild(pid), kOk);
  auto v = ops::Sum(t).Item<float>();  // the parent is unaffected
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 20000.0f * 256);
}

TEST(Fork, AGraphCapturedInTheParentIsRefusedInTheChild) {
  TensorMeta meta{Shape({4}), DType::kFloat32, Device::Cpu()};
  absl::StatusOr<Graph> g = Graph::Capture({meta}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::AddScalar(in[0], 1)};
  });
  ASSERT_TRUE(g.ok()) << g.status();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (kTsan) _exit(kOk);  // FromVector would start the child's VM threads
    auto out = g->Run({FromVector<float>({1, 2, 3, 4}, {4})});
    if (out.ok() || out.status().message().find("fork()") == std::string::npos) {
      _exit(kParentGraphAccepted);
    }
    _exit(ChildWork(nullptr));
  }
  EXPECT_EQ(WaitChild(pid), kOk);
  auto out = g->Run({FromVector<float>({1, 2, 3, 4}, {4})});  // still fine in the parent
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*ops::Sum((*out)[0]).Item<float>(), 14);
}

TEST(Fork, FromAThreadThatNeverUsedTheVm) {
  Tensor t = LongChain(5000);
  std::atomic<int> child_exit{-2};
  std::thread forker([&] {
    const pid_t pid = fork();
    if (pid == 0) _exit(kAsan ? kOk : ChildWork(nullptr));  // kAsan: see above
    child_exit = WaitChild(pid);
  });
  forker.join();
  EXPECT_EQ(child_exit.load(), kOk);
  EXPECT_EQ(*ops::Sum(t).Item<float>(), 5000.0f * 256);
}

std::atomic<pid_t> kernel_child{0};

TEST(Fork, FromAKernelNeitherSideDeadlocks) {
  ASSERT_TRUE(RegisterOp("ForkInKernel", [](const std::vector<TensorMeta>& in, const Attrs&) {
                return std::vector<TensorMeta>{in[0]};
              }).ok());
  ASSERT_TRUE(RegisterKernel("ForkInKernel", DeviceType::kCPU, [](KernelContext& ctx) {
                const pid_t pid = fork();  // on a VM thread: the handlers must not drain
                if (pid == 0) _exit(kAsan ? kOk : ChildWork(nullptr));  // kAsan: see above
                kernel_child = pid;
                ctx.output<float>(0)[0] = ctx.input<float>(0)[0] * 2;
                return absl::OkStatus();
              }).ok());
  Tensor busy = LongChain(2000);  // other work in flight meanwhile
  auto out = ops::Call("ForkInKernel", {FromVector<float>({21}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  auto v = (*out)[0].Item<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 42);
  ASSERT_GT(kernel_child.load(), 0);
  EXPECT_EQ(WaitChild(kernel_child.load()), kOk);
  EXPECT_EQ(*ops::Sum(busy).Item<float>(), 2000.0f * 256);
}

TEST(Fork, TwiceInARowAndFromTheChildAgain) {
  for (int round = 0; round < 2; ++round) {
    Tensor t = LongChain(1000);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (kTsan) _exit(ChildWork(&t));  // LongChain would start threads
      // A grandchild of a child: generation 2.
      Tensor u = LongChain(1000);
      const pid_t grandchild = fork();
      if (grandchild == 0) _exit(ChildWork(&u));
      int status = 0;
      waitpid(grandchild, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != kOk) _exit(WEXITSTATUS(status) + 100);
      _exit(ChildWork(&t));
    }
    EXPECT_EQ(WaitChild(pid), kOk) << "round " << round;
    EXPECT_EQ(*ops::Sum(t).Item<float>(), 1000.0f * 256);
  }
}

}  // namespace
}  // namespace eagervm
