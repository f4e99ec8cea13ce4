// All-reduce through the VM (ops::AllReduceInplace + Wait: a queued
// instruction on the CPU comm stream, ordered by the VM, run by the comm
// worker; with EAGERVM_COLLECTIVES_ON_CALLER=1, run on the calling thread
// when the VM is idle) against a raw MPI_Allreduce of the same buffer, in the
// same run, at 4 bytes (latency) and 64 MiB (bandwidth). Run under mpirun
// (every rank runs the same benchmarks with fixed iteration counts, so the
// collectives match); rank 0 prints the table:
//
//   mpirun -np 2 --oversubscribe --bind-to none --mca btl self,vader \
//       --mca btl_vader_single_copy_mechanism none [-x EAGERVM_COLLECTIVES_ON_CALLER=1] \
//       build/bench/mpi_allreduce_bench
//
// Goals: >= 0.9x raw MPI's bandwidth at 64 MiB (time <= 1.11x),
// <= 1.5x its latency at 4 bytes.
#include <mpi.h>
#include <sys/resource.h>

#include <cstdio>

#include "common/bench_util.h"
#include "eagervm/eagervm.h"

namespace eagervm::bench {
namespace {

constexpr int64_t kSmall = 4;
constexpr int64_t kLarge = int64_t{64} << 20;
int IterationsFor(int64_t bytes) { return bytes <= 4096 ? 4000 : 12; }

// Zeros: the sum stays 0, so repeated in-place reductions never overflow.
Tensor Buffer(int64_t bytes) { return Zeros({bytes / 4}, DType::kFloat32); }

// This thread's context switches so far (voluntary + involuntary): a
// collective loop that is preempted, or that sleeps, shows it here.
double ContextSwitches() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_nvcsw + u.ru_nivcsw);
}

void Start(benchmark::State& state) {
  if (!Sync().ok()) state.SkipWithError("Sync failed");
  MPI_Barrier(MPI_COMM_WORLD);  // the comm worker is idle after Sync()
}

void BM_RawMpiAllreduce(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  Tensor x = Buffer(bytes);
  std::vector<float> host(static_cast<size_t>(bytes / 4), 0.0f);
  Start(state);
  const double switches = ContextSwitches();
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    MPI_Allreduce(MPI_IN_PLACE, host.data(), static_cast<int>(host.size()), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    timer.Add(WallNanos() - t0, 1);
  }
  timer.Report(state);
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["context_switches"] = ContextSwitches() - switches;
}

void BM_EvmAllReduce(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  Tensor x = Buffer(bytes);
  Start(state);
  const VmStats before = VirtualMachine::Get().GetStats();
  const double switches = ContextSwitches();
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    absl::Status s = ops::AllReduceInplace(x);
    if (s.ok()) s = x.Wait();
    timer.Add(WallNanos() - t0, 1);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  timer.Report(state);
  state.SetBytesProcessed(state.iterations() * bytes);
  // Wake-ups of the scheduler thread: an op on the caller-runs path needs
  // none, so these count the ops that took the queued path.
  const VmStats after = VirtualMachine::Get().GetStats();
  state.counters["scheduler_wakeups"] =
      static_cast<double>(after.scheduler_wakeups - before.scheduler_wakeups);
  state.counters["context_switches"] = ContextSwitches() - switches;
}

// Pipelined: 16 all-reduces of independent buffers queued, then one Sync.
void BM_EvmAllReduceQueued(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  std::vector<Tensor> xs;
  for (int i = 0; i < 16; ++i) xs.push_back(Buffer(bytes));
  Start(state);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (const Tensor& x : xs) (void)ops::AllReduceInplace(x);
    (void)Sync();
    timer.Add(WallNanos() - t0, static_cast<int64_t>(xs.size()));
  }
  timer.Report(state);
}

void Register() {
  for (int64_t bytes : {kSmall, kLarge}) {
    // Fixed iterations: every rank must make the same number of calls.
    benchmark::RegisterBenchmark("BM_RawMpiAllreduce", BM_RawMpiAllreduce)
        ->Arg(bytes)
        ->Iterations(IterationsFor(bytes))
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_EvmAllReduce", BM_EvmAllReduce)
        ->Arg(bytes)
        ->Iterations(IterationsFor(bytes))
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("BM_EvmAllReduceQueued", BM_EvmAllReduceQueued)
      ->Arg(kSmall)
      ->Iterations(IterationsFor(kSmall) / 16)
      ->UseRealTime();
}

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  using eagervm::bench::Ratio;
  if (absl::Status s = eagervm::InitDistributed(); !s.ok()) {
    std::fprintf(stderr, "%s (run it under mpirun)\n", s.ToString().c_str());
    return 2;
  }
  if (eagervm::Rank() != 0 && std::freopen("/dev/null", "w", stdout) == nullptr) return 2;
  eagervm::bench::Register();
  const std::string small = std::to_string(eagervm::bench::kSmall);
  const std::string large = std::to_string(eagervm::bench::kLarge);
  const int rc = eagervm::bench::RunWithRatios(
      argc, argv,
      {{"all-reduce 4 B latency: VM / raw MPI_Allreduce", "BM_EvmAllReduce/" + small,
        "BM_RawMpiAllreduce/" + small, "<= 1.5x"},
       {"all-reduce 4 B, 16 queued: VM per op / raw", "BM_EvmAllReduceQueued/" + small,
        "BM_RawMpiAllreduce/" + small, ""},
       {"all-reduce 64 MiB bandwidth: VM / raw (speed)", "BM_EvmAllReduce/" + large,
        "BM_RawMpiAllreduce/" + large, ">= 0.9x", /*speedup=*/true}});
  return rc != 0 ? rc : (eagervm::FinalizeDistributed().ok() ? 0 : 1);
}
