// The soak run (scripts/soak.sh, docs/reliability.md): random programs
// (tests/random_program.h, checked against the sequential reference) on
// several user threads at once, for a number of minutes. Prints, per minute,
// ops/s, the resident set size and the VM's bytes in use; fails on the first
// mismatch, or if RSS keeps growing after the warm-up minute.
//
// Usage: eagervm_soak [minutes=10] [threads=4]
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "random_program.h"

namespace {

int64_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * sysconf(_SC_PAGESIZE);
}

int64_t BytesInUse() {
  int64_t bytes = 0;
  for (const auto& m : eagervm::VirtualMachine::Get().GetStats().memory) bytes += m.bytes_in_use;
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  const int minutes = argc > 1 ? std::atoi(argv[1]) : 10;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 4;
  eagervm::testing::ProgramOptions opts;
  opts.num_ops = 200;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> programs{0};
  std::mutex failure_mu;
  std::string failure;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (uint64_t seed = 1'000'000ull * t; !stop.load(std::memory_order_relaxed); ++seed) {
        std::string f = eagervm::testing::RunRandomProgram(seed, opts);
        if (!f.empty()) {
          std::lock_guard<std::mutex> lock(failure_mu);
          if (failure.empty()) failure = f;
          stop = true;
        }
        programs.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  std::printf("minute  programs  ops/s  rss_MiB  vm_in_use_KiB\n");
  std::vector<int64_t> rss;
  int64_t last_programs = 0;
  for (int m = 1; m <= minutes && !stop.load(); ++m) {
    for (int s = 0; s < 60 && !stop.load(); ++s) std::this_thread::sleep_for(std::chrono::seconds(1));
    const int64_t p = programs.load();
    rss.push_back(RssBytes());
    std::printf("%6d  %8lld  %5.0f  %7.1f  %13lld\n", m, static_cast<long long>(p),
                static_cast<double>(p - last_programs) * opts.num_ops / 60.0,
                rss.back() / 1048576.0, static_cast<long long>(BytesInUse() / 1024));
    std::fflush(stdout);
    last_programs = p;
  }
  stop = true;
  for (auto& w : workers) w.join();
  if (!failure.empty()) {
    std::printf("FAILED: %s\n", failure.c_str());
    return 1;
  }
  if (!eagervm::Sync().ok()) return 1;
  // Flat after warm-up: the last minute's RSS within 10% (or 8 MiB) of the
  // largest seen up to the half-way minute.
  if (rss.size() >= 3) {
    int64_t early_max = 0;
    for (size_t i = 0; i <= rss.size() / 2; ++i) early_max = std::max(early_max, rss[i]);
    const int64_t slack = std::max<int64_t>(early_max / 10, int64_t{8} << 20);
    if (rss.back() > early_max + slack) {
      std::printf("FAILED: RSS grew from %.1f MiB to %.1f MiB after the warm-up\n",
                  early_max / 1048576.0, rss.back() / 1048576.0);
      return 1;
    }
    std::printf("RSS flat: %.1f MiB at the end, at most %.1f MiB in the first half\n",
                rss.back() / 1048576.0, early_max / 1048576.0);
  }
  std::printf("soak passed: %lld programs of %d ops on %d threads in %d minute(s)\n",
              static_cast<long long>(programs.load()), opts.num_ops, threads, minutes);
  return 0;
}
