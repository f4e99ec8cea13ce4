// Helpers shared by eagervm's benchmarks: clocks and a main() that prints a
// table of ratios between benchmarks of the same run.
//
// Every benchmark here reports a user counter "ns_per_op" that it computes
// itself (total measured nanoseconds / ops), so ratios do not depend on
// Google Benchmark's time units or on what it counts as one iteration.
#ifndef EAGERVM_BENCH_COMMON_BENCH_UTIL_H_
#define EAGERVM_BENCH_COMMON_BENCH_UTIL_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace eagervm::bench {

int64_t WallNanos();        // steady clock
int64_t ThreadCpuNanos();   // CLOCK_THREAD_CPUTIME_ID of the calling thread
int64_t ProcessCpuNanos();  // CLOCK_PROCESS_CPUTIME_ID: all threads of the process

// Accumulates measured time and op counts over a benchmark's iterations and
// sets the "ns_per_op" counter at the end.
class OpTimer {
 public:
  void Add(int64_t ns, int64_t ops) {
    ns_ += ns;
    ops_ += ops;
  }
  void Report(benchmark::State& state, const char* counter = "ns_per_op") const;

 private:
  int64_t ns_ = 0;
  int64_t ops_ = 0;
};

// One row of the printed table: counter(numerator) / counter(denominator).
// Names are full benchmark names (e.g. "BM_EvmTwoChains/1"). With
// `higher_is_better`, the row prints denominator / numerator instead (a
// speed-up).
struct Ratio {
  std::string label;
  std::string numerator;
  std::string denominator;
  std::string goal;  // printed as is, e.g. "<= 0.5x"
  bool speedup = false;
  std::string counter = "ns_per_op";
};

// Runs the benchmarks selected by the command line (Google Benchmark's flags,
// --benchmark_out=... included), then prints `ratios` from the median (with
// --benchmark_repetitions) or the single run of each benchmark.
int RunWithRatios(int argc, char** argv, const std::vector<Ratio>& ratios);

}  // namespace eagervm::bench

#endif  // EAGERVM_BENCH_COMMON_BENCH_UTIL_H_
