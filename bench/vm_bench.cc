// eagervm's per-op costs, each next to a baseline measured in the same run:
// tiny ops end to end and submit-side, Item() round trips, bulk adds against
// a direct kernel call, stream parallelism and idle CPU. Run with
// scripts/bench.sh; the peers' side is in bench/peers/ (scripts/bench_peers.sh).
//
// The VM reads its options from EAGERVM_* variables (VmOptions::FromEnv), so
// e.g. EAGERVM_COMPUTE_ON_SCHEDULER_THREAD=1 measures that mode.
#include <chrono>
#include <thread>
#include <vector>

#include "common/chain_bench.h"
#include "eagervm/eagervm.h"

namespace eagervm::bench {
namespace {

constexpr int kChainOps = 20'000;
constexpr int64_t kBig = 1 << 20;  // 1M floats
constexpr int kBigOps = 8;

// Thread wake-ups (parks that ended in a wake) per op over a benchmark: each
// costs ~20 us on these machines, so this counter explains most of ns_per_op.
class WakeCounter {
 public:
  WakeCounter() : start_(Wakeups()) {}
  void Report(benchmark::State& state, int64_t ops) const {
    state.counters["wakeups_per_op"] =
        ops > 0 ? static_cast<double>(Wakeups() - start_) / static_cast<double>(ops) : 0.0;
  }

 private:
  static uint64_t Wakeups() {
    const VmStats s = VirtualMachine::Get().GetStats();
    return s.scheduler_wakeups + s.worker_wakeups;
  }
  uint64_t start_;
};

// 20k dependent AddInplace on a 1-float tensor, then Sync(): the VM's per-op
// overhead end to end (the kernel itself is ~1 ns).
void BM_EvmChain(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  OpTimer timer;
  WakeCounter wakes;
  float expect = 0;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) Check(state, ops::AddInplace(t, one));
    Check(state, Sync());
    timer.Add(WallNanos() - t0, kChainOps);
    expect += kChainOps;
  }
  timer.Report(state);
  wakes.Report(state, state.iterations() * kChainOps);
  ExpectValue(state, t, expect);
}
BENCHMARK(BM_EvmChain)->UseRealTime();

// The same adds through the registered kernel, called directly.
void BM_DirectChain(benchmark::State& state) { RunDirectChain(state, kChainOps); }
BENCHMARK(BM_DirectChain)->UseRealTime();

// 20k AddInplace spread over 64 tensors, odd ones on stream 1: no dependences
// between consecutive ops, two streams.
void BM_EvmIndependent(benchmark::State& state) {
  std::vector<Tensor> ts;
  for (int k = 0; k < 64; ++k) {
    StreamScope scope(Stream(Device::Cpu(), k & 1));
    ts.push_back(Scalar1(0));
  }
  Tensor one = Scalar1(1);
  OpTimer timer;
  WakeCounter wakes;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) {
      const int k = i & 63;
      StreamScope scope(Stream(Device::Cpu(), k & 1));
      Check(state, ops::AddInplace(ts[k], one));
    }
    Check(state, Sync());
    timer.Add(WallNanos() - t0, kChainOps);
  }
  timer.Report(state);
  wakes.Report(state, state.iterations() * kChainOps);
}
BENCHMARK(BM_EvmIndependent)->UseRealTime();

// 20k dependent out-of-place adds on 1-float tensors (`t = t + one`), then
// Sync(): the chain with inference, a fresh output and the drop of the
// previous one per op (a ReleaseTensor instruction); what an expression in
// user code costs.
void BM_EvmAddChain(benchmark::State& state) {
  Tensor one = Scalar1(1);
  OpTimer timer;
  for (auto _ : state) {
    Tensor t = Scalar1(0);
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) t = ops::Add(t, one);
    Check(state, Sync());
    timer.Add(WallNanos() - t0, kChainOps);
    ExpectValue(state, t, static_cast<float>(kChainOps));
  }
  timer.Report(state);
}
BENCHMARK(BM_EvmAddChain)->UseRealTime();

// What the user thread pays per op: its CPU time in the submission loop only
// (Sync() is not counted). "wall_ns_per_op" is the loop's wall time.
void BM_EvmSubmit(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  OpTimer cpu, wall;
  for (auto _ : state) {
    const int64_t c0 = ThreadCpuNanos(), w0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) Check(state, ops::AddInplace(t, one));
    cpu.Add(ThreadCpuNanos() - c0, kChainOps);
    wall.Add(WallNanos() - w0, kChainOps);
    state.PauseTiming();
    Check(state, Sync());
    state.ResumeTiming();
  }
  cpu.Report(state);
  wall.Report(state, "wall_ns_per_op");
}
BENCHMARK(BM_EvmSubmit)->UseRealTime();

// Registered once: an in-place op whose kernel does nothing, for the
// scheduling cost alone (StarPU's empty-task chain is the peer).
void RegisterEmptyOp() {
  static const bool once = [] {
    OpOptions o;
    o.mutated_inputs = {0};
    // Empty and never blocks: what small_runs_inline is for. bench_peers.sh
    // also runs it with every op handed to a worker (EAGERVM_INLINE_MAX_BYTES=0).
    o.small_runs_inline = true;
    auto infer = [](const std::vector<TensorMeta>&, const Attrs&) {
      return absl::StatusOr<std::vector<TensorMeta>>(std::vector<TensorMeta>{});
    };
    if (!RegisterOp("BenchEmptyInplace", infer, o).ok()) std::abort();
    if (!RegisterKernel("BenchEmptyInplace", DeviceType::kCPU, [](KernelContext&) {
           return absl::OkStatus();
         }).ok()) {
      std::abort();
    }
    return true;
  }();
  (void)once;
}

void BM_EvmEmptyChain(benchmark::State& state) {
  RegisterEmptyOp();
  Tensor t = Scalar1(0);
  const std::vector<Tensor> inputs{t};
  OpTimer timer;
  WakeCounter wakes;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i)
      Check(state, ops::Call("BenchEmptyInplace", inputs).status());
    Check(state, Sync());
    timer.Add(WallNanos() - t0, kChainOps);
  }
  timer.Report(state);
  wakes.Report(state, state.iterations() * kChainOps);
}
BENCHMARK(BM_EvmEmptyChain)->UseRealTime();

// One op and a blocking scalar read, VM warm: the latency a user sees.
void BM_EvmItem(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  Check(state, Sync());
  OpTimer timer;
  WakeCounter wakes;
  float expect = 0;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    Check(state, ops::AddInplace(t, one));
    absl::StatusOr<float> v = t.Item<float>();
    timer.Add(WallNanos() - t0, 1);
    expect += 1;
    if (!v.ok() || *v != expect) state.SkipWithError("wrong Item()");
  }
  timer.Report(state);
  wakes.Report(state, state.iterations());
}
BENCHMARK(BM_EvmItem)->UseRealTime();

// ns/op of a dependent chain of N ops then Sync(): how the per-op cost falls
// as more ops are in flight (tools/plot_inflight.py plots it).
void InFlightChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Tensor t = Scalar1(0), one = Scalar1(1);
  Check(state, Sync());
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < n; ++i) Check(state, ops::AddInplace(t, one));
    Check(state, Sync());
    timer.Add(WallNanos() - t0, n);
  }
  timer.Report(state);
}
void BM_EvmInFlight(benchmark::State& state) { InFlightChain(state); }
BENCHMARK(BM_EvmInFlight)->RangeMultiplier(4)->Range(1, 16384)->UseRealTime();

// BM_EvmInFlight once autograd is in use in the process (a tensor requires
// grad, so every op goes through the recorder) but no input of these ops
// requires grad: what autograd costs the ops it does not record. Run it on
// its own (--benchmark_filter): the recorder stays installed for the rest of
// the process.
void BM_EvmInFlightAutogradOn(benchmark::State& state) {
  static const Tensor parameter = Scalar1(0).RequiresGrad();  // installs the recorder
  InFlightChain(state);
}
BENCHMARK(BM_EvmInFlightAutogradOn)->Arg(4096)->UseRealTime();

// 8 out-of-place 1M-float adds, then Sync(): memory-bound kernels, where the
// VM should cost nothing measurable.
void BM_EvmAdd1M(benchmark::State& state) {
  Tensor a = Full({kBig}, 1.0f, DType::kFloat32), b = Full({kBig}, 2.0f, DType::kFloat32);
  Check(state, Sync());
  OpTimer timer;
  Tensor c;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kBigOps; ++i) c = ops::Add(a, b);
    Check(state, Sync());
    timer.Add(WallNanos() - t0, kBigOps);
  }
  timer.Report(state);
  ExpectValue(state, c.Slice(0, 1).Reshape({1}), 3.0f);
}
BENCHMARK(BM_EvmAdd1M)->UseRealTime();

void BM_DirectAdd1M(benchmark::State& state) {
  std::vector<float> a(kBig, 1.0f), b(kBig, 2.0f), c(kBig);
  DirectKernel k("Add", {kBig}, {a.data(), b.data()}, {c.data()});
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kBigOps; ++i) {
      if (!k.Call()) state.SkipWithError("kernel failed");
    }
    benchmark::DoNotOptimize(c.data());
    timer.Add(WallNanos() - t0, kBigOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_DirectAdd1M)->UseRealTime();

// The same direct calls, writing two output buffers in turn: the pattern of
// `c = ops::Add(a, b)` in a loop, where the next output is allocated before
// the previous one is dropped. 16 MB touched per pair of ops instead of 12,
// which on these machines no longer fits the last-level cache: this is the
// baseline that separates the VM's cost from the memory system's.
void BM_DirectAdd1MTwoOutputs(benchmark::State& state) {
  std::vector<float> a(kBig, 1.0f), b(kBig, 2.0f), c0(kBig), c1(kBig);
  DirectKernel k0("Add", {kBig}, {a.data(), b.data()}, {c0.data()});
  DirectKernel k1("Add", {kBig}, {a.data(), b.data()}, {c1.data()});
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kBigOps; ++i) {
      if (!(i % 2 == 0 ? k0 : k1).Call()) state.SkipWithError("kernel failed");
    }
    benchmark::DoNotOptimize(c0.data());
    benchmark::DoNotOptimize(c1.data());
    timer.Add(WallNanos() - t0, kBigOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_DirectAdd1MTwoOutputs)->UseRealTime();

// Two independent chains of 8 in-place 1M-float adds, on range(0) streams
// (1: both on stream 0; 2: one chain per stream), submitted interleaved
// (range(1) 0) or one whole chain, then the other (1). ns_per_op counts
// both chains.
void BM_EvmTwoChains(benchmark::State& state) {
  const int streams = static_cast<int>(state.range(0));
  const bool one_then_other = state.range(1) != 0;
  Tensor x, y, one;
  {
    StreamScope s0(Stream(Device::Cpu(), 0));
    x = Full({kBig}, 0.0f, DType::kFloat32);
    one = Full({kBig}, 1.0f, DType::kFloat32);
  }
  {
    StreamScope s1(Stream(Device::Cpu(), streams - 1));
    y = Full({kBig}, 0.0f, DType::kFloat32);
  }
  Check(state, Sync());
  auto add = [&](int chain) {
    StreamScope s(Stream(Device::Cpu(), chain == 0 ? 0 : streams - 1));
    Check(state, ops::AddInplace(chain == 0 ? x : y, one));
  };
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < 2 * kBigOps; ++i) {
      add(one_then_other ? i / kBigOps : i % 2);
    }
    Check(state, Sync());
    timer.Add(WallNanos() - t0, 2 * kBigOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_EvmTwoChains)->Args({1, 0})->Args({2, 0})->Args({2, 1})->UseRealTime();

// CPU used by the whole process (all VM threads) in the 300 ms after a burst
// of work and a Sync(): "cpu_percent" of one core. Spinning after work is
// bounded (VmOptions::spin_us), so this must be ~0.
void BM_EvmIdle(benchmark::State& state) {
  Tensor t = Scalar1(0), one = Scalar1(1);
  for (auto _ : state) {
    for (int i = 0; i < kChainOps; ++i) Check(state, ops::AddInplace(t, one));
    Check(state, Sync());
    const int64_t c0 = ProcessCpuNanos(), w0 = WallNanos();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    state.counters["cpu_percent"] =
        100.0 * static_cast<double>(ProcessCpuNanos() - c0) / static_cast<double>(WallNanos() - w0);
  }
}
BENCHMARK(BM_EvmIdle)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  using eagervm::bench::Ratio;
  return eagervm::bench::RunWithRatios(
      argc, argv,
      {
          {"tiny op chain: VM / direct kernel call", "BM_EvmChain", "BM_DirectChain", ""},
          {"submit-side CPU / end-to-end (same op)", "BM_EvmSubmit", "BM_EvmChain", ""},
          {"independent (64 tensors, 2 streams) / chain", "BM_EvmIndependent", "BM_EvmChain", ""},
          {"1M-float add: VM / direct kernel call", "BM_EvmAdd1M", "BM_DirectAdd1M", "<= 1.05x"},
          {"two 1M-add chains: 2 streams vs 1 (speed-up)", "BM_EvmTwoChains/2/0",
           "BM_EvmTwoChains/1/0", ">= 1.7x", /*speedup=*/true},
          {"  the same, one chain then the other", "BM_EvmTwoChains/2/1", "BM_EvmTwoChains/1/0",
           ">= 1.7x", /*speedup=*/true},
      });
}
