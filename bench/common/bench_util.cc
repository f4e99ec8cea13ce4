#include "common/bench_util.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>

namespace eagervm::bench {
namespace {

int64_t ClockNanos(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// "BM_X/2/real_time" and "BM_X/iterations:1" -> "BM_X/2", "BM_X": the names
// the ratio table (and tools/bench_table.py) use.
std::string BaseName(const std::string& full) {
  std::string out;
  size_t start = 0;
  while (start <= full.size()) {
    size_t end = full.find('/', start);
    if (end == std::string::npos) end = full.size();
    const std::string part = full.substr(start, end - start);
    if (part != "real_time" && part.find(':') == std::string::npos) {
      if (!out.empty()) out += '/';
      out += part;
    }
    start = end + 1;
  }
  return out;
}

// Keeps every counter of every run for the ratio table, and still prints the
// usual console output. A median aggregate replaces the per-repetition runs.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // Colours only on a terminal: the table is often piped into a file.
  RatioReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const std::string name = BaseName(r.run_name.str());
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (r.run_type == Run::RT_Aggregate && !median) continue;
      if (!median && medians_.count(name) > 0) continue;
      for (const auto& [key, counter] : r.counters) values_[name][key] = counter.value;
      if (median) medians_[name] = true;
    }
    ConsoleReporter::ReportRuns(runs);
  }

  const double* Find(const std::string& name, const std::string& counter) const {
    auto it = values_.find(name);
    if (it == values_.end()) return nullptr;
    auto c = it->second.find(counter);
    return c == it->second.end() ? nullptr : &c->second;
  }

 private:
  std::map<std::string, std::map<std::string, double>> values_;
  std::map<std::string, bool> medians_;
};

}  // namespace

int64_t WallNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
int64_t ThreadCpuNanos() { return ClockNanos(CLOCK_THREAD_CPUTIME_ID); }
int64_t ProcessCpuNanos() { return ClockNanos(CLOCK_PROCESS_CPUTIME_ID); }

void OpTimer::Report(benchmark::State& state, const char* counter) const {
  state.counters[counter] = ops_ > 0 ? static_cast<double>(ns_) / static_cast<double>(ops_) : 0.0;
}

int RunWithRatios(int argc, char** argv, const std::vector<Ratio>& ratios) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  std::printf("\n%-52s %12s %12s %9s  %s\n", "ratio (same run)", "numerator", "denominator",
              "ratio", "goal");
  for (const Ratio& r : ratios) {
    const double* num = reporter.Find(r.numerator, r.counter);
    const double* den = reporter.Find(r.denominator, r.counter);
    if (num == nullptr || den == nullptr || *num <= 0 || *den <= 0) continue;  // filtered out
    const double value = r.speedup ? *den / *num : *num / *den;
    std::printf("%-52s %12.1f %12.1f %8.3f%s  %s\n", r.label.c_str(), *num, *den, value,
                r.speedup ? "x" : " ", r.goal.c_str());
  }
  return 0;
}

}  // namespace eagervm::bench
