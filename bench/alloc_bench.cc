// Allocation cost in steady state: the caching allocator (what every stream
// uses) against std::aligned_alloc/free, measured in the same run, plus the
// cache behaviour of a training-like loop through the VM.
//
// Each benchmark reports ns_per_op for one allocate+free pair (or one step);
// main() prints caching/malloc ratios. Arguments: size in bytes, and whether
// every 4 KiB page of the block is written (1) or only its first byte (0) —
// kernels write their outputs, and fresh pages from the system fault on
// first touch, which the cache avoids.
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/bench_util.h"
#include "eagervm/eagervm.h"
#include "memory/caching_allocator.h"
#include "memory/device_memory_budget.h"

namespace eagervm::bench {
namespace {

constexpr int kPairs = 2000;
constexpr size_t kPage = 4096;

void Touch(void* p, size_t bytes, bool every_page) {
  auto* c = static_cast<volatile char*>(p);
  if (!every_page) {
    c[0] = 1;
    return;
  }
  for (size_t i = 0; i < bytes; i += kPage) c[i] = 1;
}

int PairsFor(size_t bytes) { return bytes >= (size_t{1} << 20) ? kPairs / 20 : kPairs; }

memory::CachingAllocator& Caching() {
  static auto* a =
      new memory::CachingAllocator(std::make_shared<memory::DeviceMemoryBudget>(Device::Cpu(), 0));
  return *a;
}

void BM_CachingSteady(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const bool every_page = state.range(1) != 0;
  const int pairs = PairsFor(bytes);
  memory::CachingAllocator& a = Caching();
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < pairs; ++i) {
      void* p = *a.Allocate(bytes);
      Touch(p, bytes, every_page);
      a.Deallocate(p, bytes);
    }
    timer.Add(WallNanos() - t0, pairs);
  }
  timer.Report(state);
}

void BM_MallocSteady(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const bool every_page = state.range(1) != 0;
  const int pairs = PairsFor(bytes);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < pairs; ++i) {
      void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
      Touch(p, bytes, every_page);
      std::free(p);
    }
    timer.Add(WallNanos() - t0, pairs);
  }
  timer.Report(state);
}

#define EVM_SIZES(B)         \
  B->Args({64, 0})           \
      ->Args({4096, 0})      \
      ->Args({256 << 10, 0}) \
      ->Args({256 << 10, 1}) \
      ->Args({4 << 20, 0})   \
      ->Args({4 << 20, 1})   \
      ->Args({32 << 20, 0})  \
      ->Args({32 << 20, 1})  \
      ->UseRealTime()
EVM_SIZES(BENCHMARK(BM_CachingSteady));
EVM_SIZES(BENCHMARK(BM_MallocSteady));

// A working set of 32 live blocks of mixed sizes (64 B .. 1 MiB, log-uniform),
// each step freeing a random one and allocating a new one: splitting and
// merging at work, not just one bin.
template <typename Alloc, typename Free>
void Mixed(benchmark::State& state, Alloc alloc, Free free) {
  constexpr int kLive = 32, kSteps = 4000;
  std::mt19937 rng(7);
  std::vector<std::pair<void*, size_t>> live;
  auto draw = [&] { return size_t{64} << (rng() % 15); };
  for (int i = 0; i < kLive; ++i) {
    const size_t n = draw();
    live.emplace_back(alloc(n), n);
  }
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kSteps; ++i) {
      auto& slot = live[rng() % kLive];
      free(slot.first, slot.second);
      slot.second = draw();
      slot.first = alloc(slot.second);
      static_cast<volatile char*>(slot.first)[0] = 1;
    }
    timer.Add(WallNanos() - t0, kSteps);
  }
  for (auto [p, n] : live) free(p, n);
  timer.Report(state);
}

void BM_CachingMixed(benchmark::State& state) {
  memory::CachingAllocator& a = Caching();
  Mixed(
      state, [&](size_t n) { return *a.Allocate(n); },
      [&](void* p, size_t n) { a.Deallocate(p, n); });
}
BENCHMARK(BM_CachingMixed)->UseRealTime();

void BM_MallocMixed(benchmark::State& state) {
  Mixed(
      state, [](size_t n) { return std::aligned_alloc(64, (n + 63) / 64 * 64); },
      [](void* p, size_t) { std::free(p); });
}
BENCHMARK(BM_MallocMixed)->UseRealTime();

// A linear-regression step through the VM (X[1024x64] w[64x1]): forward,
// gradient, update, loss read back. Reports the cache hit rate and system
// allocations per step in steady state.
void BM_EvmRegressionStep(benchmark::State& state) {
  constexpr int64_t kRows = 1024, kCols = 64;
  constexpr int kSteps = 50;
  Tensor x = RandomNormal({kRows, kCols}, DType::kFloat32, Device::Cpu(), 1);
  Tensor y = RandomNormal({kRows, 1}, DType::kFloat32, Device::Cpu(), 2);
  Tensor w = Zeros({kCols, 1}, DType::kFloat32);
  auto step = [&] {
    Tensor err = ops::MatMul(x, w) - y;
    Tensor grad = ops::MatMul(ops::Transpose(x), err) * (0.01 / kRows);
    absl::Status s = ops::AddInplace(w, -grad);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    return ops::Mean(err * err);
  };
  (void)step().Item<float>();  // warm the cache
  const MemoryStats m0 = VirtualMachine::Get().GetStats().memory.at(0);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    Tensor loss;
    for (int i = 0; i < kSteps; ++i) loss = step();
    absl::StatusOr<float> l = loss.Item<float>();
    if (!l.ok()) state.SkipWithError(l.status().ToString().c_str());
    timer.Add(WallNanos() - t0, kSteps);
  }
  if (!Sync().ok()) state.SkipWithError("Sync failed");
  const MemoryStats m1 = VirtualMachine::Get().GetStats().memory.at(0);
  const double hits = static_cast<double>(m1.cache_hits - m0.cache_hits);
  const double misses = static_cast<double>(m1.cache_misses - m0.cache_misses);
  const double steps = static_cast<double>(state.iterations()) * kSteps;
  state.counters["hit_rate"] = hits + misses > 0 ? hits / (hits + misses) : 0;
  state.counters["system_allocs_per_step"] =
      static_cast<double>(m1.system_allocs - m0.system_allocs) / steps;
  state.counters["allocs_per_step"] = (hits + misses) / steps;
  timer.Report(state);
}
BENCHMARK(BM_EvmRegressionStep)->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  using eagervm::bench::Ratio;
  std::vector<Ratio> ratios;
  for (const char* args : {"64/0", "4096/0", "262144/0", "262144/1", "4194304/0", "4194304/1",
                           "33554432/0", "33554432/1"}) {
    ratios.push_back({std::string("alloc+free ") + args + ": caching / malloc",
                      std::string("BM_CachingSteady/") + args,
                      std::string("BM_MallocSteady/") + args, ""});
  }
  ratios.push_back(
      {"mixed sizes, 32 live: caching / malloc", "BM_CachingMixed", "BM_MallocMixed", ""});
  return eagervm::bench::RunWithRatios(argc, argv, ratios);
}
