// CachingAllocator and DeviceMemoryBudget, without the VM: splitting, merging,
// alignment, shrink, stats, the shared device limit and OOM recovery.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "memory/caching_allocator.h"
#include "memory/device_memory_budget.h"
#include "memory/memory_stats.h"

namespace eagervm::memory {
namespace {

using namespace std::chrono_literals;
constexpr size_t kMiB = size_t{1} << 20;

// Counts segments and can refuse them.
class CountingBackend final : public MemoryBackend {
 public:
  void* Allocate(size_t bytes) override {
    if (refuse.load()) return nullptr;
    ++allocs;
    live_bytes += static_cast<int64_t>(bytes);
    return inner_.Allocate(bytes);
  }
  void Free(void* p, size_t bytes) override {
    ++frees;
    live_bytes -= static_cast<int64_t>(bytes);
    inner_.Free(p, bytes);
  }
  std::atomic<int> allocs{0}, frees{0};
  std::atomic<int64_t> live_bytes{0};
  std::atomic<bool> refuse{false};

 private:
  MallocBackend inner_;
};

struct Fixture {
  explicit Fixture(int64_t limit = 0, std::chrono::milliseconds wait = 0ms)
      : budget(std::make_shared<DeviceMemoryBudget>(Device::Cpu(), limit)),
        backend(std::make_shared<CountingBackend>()),
        alloc(budget, backend, CachingAllocatorOptions{wait}) {}
  void* Get(size_t n) {
    absl::StatusOr<void*> p = alloc.Allocate(n);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *p : nullptr;
  }
  std::shared_ptr<DeviceMemoryBudget> budget;
  std::shared_ptr<CountingBackend> backend;
  CachingAllocator alloc;
};

char* C(void* p) { return static_cast<char*>(p); }

TEST(CachingAllocator, SmallRequestsSplitOneSegment) {
  Fixture f;
  void* a = f.Get(100);  // rounds to 128
  void* b = f.Get(64);
  void* c = f.Get(1000);
  EXPECT_EQ(f.backend->allocs, 1);
  EXPECT_EQ(C(b), C(a) + 128);
  EXPECT_EQ(C(c), C(b) + 64);
  MemoryStats s = f.alloc.GetStats();
  EXPECT_EQ(s.bytes_in_use, 128 + 64 + 1024);
  EXPECT_EQ(s.bytes_reserved, static_cast<int64_t>(CachingAllocator::kSmallSegment));
  EXPECT_EQ(s.system_allocs, 1);
  EXPECT_EQ(s.cache_misses, 1);
  EXPECT_EQ(s.cache_hits, 2);  // b and c came from the split remainder
  f.alloc.Deallocate(a, 100);
  f.alloc.Deallocate(b, 64);
  f.alloc.Deallocate(c, 1000);
}

TEST(CachingAllocator, AlignmentAndZeroBytes) {
  Fixture f;
  std::vector<std::pair<void*, size_t>> live;
  for (size_t n : {1ul, 3ul, 63ul, 64ul, 65ul, 1000ul, 4097ul, kMiB, kMiB + 1, 11 * kMiB + 7}) {
    void* p = f.Get(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CachingAllocator::kAlignment, 0u) << n;
    std::memset(p, 0xab, n);  // the whole request is writable (ASan checks)
    live.emplace_back(p, n);
  }
  absl::StatusOr<void*> z1 = f.alloc.Allocate(0), z2 = f.alloc.Allocate(0);
  ASSERT_TRUE(z1.ok() && z2.ok());
  EXPECT_NE(*z1, nullptr);
  f.alloc.Deallocate(*z1, 0);
  f.alloc.Deallocate(*z2, 0);
  for (auto [p, n] : live) f.alloc.Deallocate(p, n);
  EXPECT_EQ(f.alloc.GetStats().bytes_in_use, 0);
}

TEST(CachingAllocator, FreedBlocksMergeAndAreReused) {
  Fixture f;
  void* a = f.Get(4096);
  void* b = f.Get(4096);
  void* c = f.Get(4096);
  f.alloc.Deallocate(a, 4096);
  f.alloc.Deallocate(b, 4096);  // merges with a: 8 KiB free at a
  void* d = f.Get(8192);
  EXPECT_EQ(d, a);
  f.alloc.Deallocate(d, 8192);
  f.alloc.Deallocate(c, 4096);  // everything merges back into the whole segment
  f.alloc.Shrink();
  EXPECT_EQ(f.backend->frees, 1);
  EXPECT_EQ(f.backend->live_bytes, 0);
  EXPECT_EQ(f.alloc.GetStats().bytes_reserved, 0);
}

TEST(CachingAllocator, SteadyStateHitsTheCache) {
  Fixture f;
  for (int iter = 0; iter < 100; ++iter) {
    void* x = f.Get(3 * kMiB);
    void* y = f.Get(40000);
    void* z = f.Get(12 * kMiB);
    f.alloc.Deallocate(y, 40000);
    f.alloc.Deallocate(x, 3 * kMiB);
    f.alloc.Deallocate(z, 12 * kMiB);
  }
  MemoryStats s = f.alloc.GetStats();
  // A small segment, and a 20 MiB one holding both large requests (3 + 12 MiB).
  EXPECT_EQ(s.system_allocs, 2);
  EXPECT_EQ(s.cache_hits, 298);
  EXPECT_EQ(s.cache_misses, 2);
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(3 * kMiB + 40000 + 12 * kMiB));
}

TEST(CachingAllocator, ShrinkKeepsPartlyUsedSegments) {
  Fixture f;
  void* small = f.Get(1000);
  void* big = f.Get(16 * kMiB);
  f.alloc.Deallocate(big, 16 * kMiB);
  f.alloc.Shrink();
  EXPECT_EQ(f.backend->frees, 1);  // the big one; the small segment is still in use
  MemoryStats s = f.alloc.GetStats();
  EXPECT_EQ(s.bytes_reserved, static_cast<int64_t>(CachingAllocator::kSmallSegment));
  EXPECT_EQ(f.budget->reserved(), s.bytes_reserved);
  f.alloc.Deallocate(small, 1000);
}

TEST(CachingAllocator, SegmentSizes) {
  EXPECT_EQ(CachingAllocator::SegmentSize(64), CachingAllocator::kSmallSegment);
  EXPECT_EQ(CachingAllocator::SegmentSize(kMiB), CachingAllocator::kSmallSegment);
  EXPECT_EQ(CachingAllocator::SegmentSize(kMiB + 64), CachingAllocator::kMediumSegment);
  EXPECT_EQ(CachingAllocator::SegmentSize(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(CachingAllocator::SegmentSize(10 * kMiB + 64), 12 * kMiB);
}

TEST(CachingAllocator, SmallRequestsDoNotSplitLargeSegments) {
  Fixture f;
  void* big = f.Get(12 * kMiB);
  f.alloc.Deallocate(big, 12 * kMiB);
  void* small = f.Get(256);
  EXPECT_EQ(f.backend->allocs, 2);  // a small segment, not a piece of the 12 MiB block
  void* big2 = f.Get(12 * kMiB);
  EXPECT_EQ(big2, big);
  f.alloc.Deallocate(small, 256);
  f.alloc.Deallocate(big2, 12 * kMiB);
}

// Random alloc/free against a reference: live blocks never overlap, data
// survives, and in-use equals the sum of the live rounded sizes.
TEST(CachingAllocator, RandomOperationsKeepBlocksDisjoint) {
  Fixture f;
  std::mt19937_64 rng(42);
  std::map<char*, size_t> live;  // ptr -> requested bytes
  int64_t expect_in_use = 0;
  auto rounded = [](size_t n) { return static_cast<int64_t>((n + 63) / 64 * 64); };
  for (int step = 0; step < 4000; ++step) {
    if (live.empty() || rng() % 100 < 55) {
      const size_t choices[] = {64, 200, 4096, 70000, 900000, 3 * kMiB, 11 * kMiB};
      const size_t n = choices[rng() % 7] + rng() % 512;
      char* p = C(f.Get(n));
      ASSERT_NE(p, nullptr);
      auto next = live.lower_bound(p);
      if (next != live.end()) ASSERT_LE(p + n, next->first);
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, p);
      }
      p[0] = static_cast<char>(n);
      p[n - 1] = static_cast<char>(n >> 8);
      live.emplace(p, n);
      expect_in_use += rounded(n);
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      ASSERT_EQ(it->first[0], static_cast<char>(it->second));
      ASSERT_EQ(it->first[it->second - 1], static_cast<char>(it->second >> 8));
      f.alloc.Deallocate(it->first, it->second);
      expect_in_use -= rounded(it->second);
      live.erase(it);
    }
    if (step % 500 == 0) f.alloc.Shrink();
    ASSERT_EQ(f.alloc.GetStats().bytes_in_use, expect_in_use);
  }
  for (auto [p, n] : live) f.alloc.Deallocate(p, n);
  f.alloc.Shrink();
  EXPECT_EQ(f.backend->live_bytes, 0);
  EXPECT_EQ(f.budget->in_use(), 0);
}

TEST(DeviceMemoryBudget, LimitIsSharedByTheDevicesAllocators) {
  auto budget = std::make_shared<DeviceMemoryBudget>(Device::Cpu(), 24 * kMiB);
  auto backend = std::make_shared<CountingBackend>();
  CachingAllocator s0(budget, backend, CachingAllocatorOptions{0ms}),
      s1(budget, backend, CachingAllocatorOptions{0ms});
  absl::StatusOr<void*> a = s0.Allocate(16 * kMiB);
  ASSERT_TRUE(a.ok());
  // Fits either allocator alone, but not the device.
  absl::StatusOr<void*> b = s1.Allocate(16 * kMiB);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string msg(b.status().message());
  EXPECT_NE(msg.find("16777216 bytes"), std::string::npos) << msg;  // asked
  EXPECT_NE(msg.find("25165824 bytes"), std::string::npos) << msg;  // limit
  EXPECT_NE(msg.find("in use on cpu"), std::string::npos) << msg;
  EXPECT_EQ(s1.GetStats().oom_failures, 1);
  std::vector<MemoryStats> by_device = StatsByDevice({&s0, &s1});
  ASSERT_EQ(by_device.size(), 1u);
  EXPECT_EQ(by_device[0].bytes_in_use, static_cast<int64_t>(16 * kMiB));
  EXPECT_EQ(by_device[0].peak_bytes_in_use, static_cast<int64_t>(16 * kMiB));
  EXPECT_EQ(by_device[0].oom_failures, 1);
  s0.Deallocate(*a, 16 * kMiB);
}

TEST(DeviceMemoryBudget, FullSegmentRefusedThenExactSegmentFits) {
  Fixture f(/*limit=*/4 * kMiB);
  void* p = f.Get(3 * kMiB);  // a 20 MiB segment would pass the limit
  EXPECT_EQ(f.alloc.GetStats().bytes_reserved, static_cast<int64_t>(3 * kMiB));
  f.alloc.Deallocate(p, 3 * kMiB);
}

TEST(OomRecovery, ShrinksOtherAllocatorsCaches) {
  auto budget = std::make_shared<DeviceMemoryBudget>(Device::Cpu(), 32 * kMiB);
  auto backend = std::make_shared<CountingBackend>();
  CachingAllocator s0(budget, backend), s1(budget, backend);
  void* a = *s0.Allocate(20 * kMiB);
  s0.Deallocate(a, 20 * kMiB);  // cached by s0, still reserved
  absl::StatusOr<void*> b = s1.Allocate(20 * kMiB);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(s1.GetStats().oom_recoveries, 1);
  EXPECT_EQ(s0.GetStats().bytes_reserved, 0);
  s1.Deallocate(*b, 20 * kMiB);
}

TEST(OomRecovery, WaitsForAnotherThreadToFree) {
  auto budget = std::make_shared<DeviceMemoryBudget>(Device::Cpu(), 32 * kMiB);
  auto backend = std::make_shared<CountingBackend>();
  CachingAllocator s0(budget, backend), s1(budget, backend, CachingAllocatorOptions{5000ms});
  void* a = *s0.Allocate(20 * kMiB);
  std::thread other([&] {
    std::this_thread::sleep_for(50ms);
    s0.Deallocate(a, 20 * kMiB);  // into s0's cache: s1 must shrink it to fit
  });
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<void*> b = s1.Allocate(20 * kMiB);
  const auto waited = std::chrono::steady_clock::now() - start;
  other.join();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_LT(waited, 4000ms);  // woken by the free, not by the deadline
  EXPECT_EQ(s1.GetStats().oom_recoveries, 1);
  s1.Deallocate(*b, 20 * kMiB);
}

TEST(OomRecovery, FailsAfterTheWaitWhenNothingIsFreed) {
  Fixture f(/*limit=*/8 * kMiB, /*wait=*/30ms);
  void* a = f.Get(6 * kMiB);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<void*> b = f.alloc.Allocate(6 * kMiB);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 30ms);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  // The allocator is still usable.
  void* c = f.Get(kMiB);
  f.alloc.Deallocate(c, kMiB);
  f.alloc.Deallocate(a, 6 * kMiB);
}

TEST(OomRecovery, SystemRefusalIsResourceExhausted) {
  Fixture f;
  f.backend->refuse = true;
  absl::StatusOr<void*> p = f.alloc.Allocate(100);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(p.status().message()).find("system refused"), std::string::npos);
  EXPECT_EQ(f.budget->reserved(), 0);
  f.backend->refuse = false;
  void* q = f.Get(100);
  f.alloc.Deallocate(q, 100);
}

// Two "stream workers" allocate and free on their own allocators while a third
// thread shrinks and reads stats (TSan checks the locking).
TEST(CachingAllocator, ConcurrentUseWithShrinkAndStats) {
  auto budget = std::make_shared<DeviceMemoryBudget>(Device::Cpu(), 0);
  auto backend = std::make_shared<CountingBackend>();
  CachingAllocator s0(budget, backend), s1(budget, backend);
  std::atomic<bool> stop{false};
  auto worker = [](CachingAllocator* a, int seed) {
    std::mt19937 rng(seed);
    std::vector<std::pair<void*, size_t>> live;
    for (int i = 0; i < 3000; ++i) {
      if (live.size() < 8 && rng() % 2) {
        const size_t n = 64 + rng() % (2 * kMiB);
        void* p = *a->Allocate(n);
        static_cast<char*>(p)[n - 1] = 1;
        live.emplace_back(p, n);
      } else if (!live.empty()) {
        a->Deallocate(live.back().first, live.back().second);
        live.pop_back();
      }
    }
    for (auto [p, n] : live) a->Deallocate(p, n);
  };
  std::thread observer([&] {
    while (!stop.load()) {
      budget->ShrinkAll();
      (void)StatsByDevice({&s0, &s1});
      std::this_thread::yield();
    }
  });
  std::thread t0(worker, &s0, 1), t1(worker, &s1, 2);
  t0.join();
  t1.join();
  stop = true;
  observer.join();
  EXPECT_EQ(budget->in_use(), 0);
  budget->ShrinkAll();
  EXPECT_EQ(backend->live_bytes, 0);
}

}  // namespace
}  // namespace eagervm::memory
