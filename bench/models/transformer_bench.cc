// The models suite's transformer: trains the character-level language model
// of transformer.h on a text file in every mode and times them side by
// side in one alternating run:
//
//   kernel time     the sum of the compute slices of every op instruction
//                   (releases and reads left out) in a trace of eager sync's
//                   timed steps: the kernels alone, no runtime
//   eager           eagervm eagerly, autograd and Adam, the default VM
//   eager sync      the same with EAGERVM_SYNCHRONOUS=1 (a child process)
//   graph           eagervm, the training step captured once and replayed
//   libtorch        the same program in libtorch's C++ API, one thread
//
// Before timing, eager, graph and libtorch train --check-steps steps from the
// same initial parameters on the same batches; the loss curve is printed and
// the run fails (exit 1) unless eager and graph give bitwise the same curve
// and libtorch's final loss (the mean of the last 10 steps) is within 2%
// (relative) of eager's. Then each rep times --steps steps of every mode,
// in an order that rotates from rep to rep, and greedy generation of --gen
// characters (tokens/s; eager and graph must generate the same text).
//
// With --device=cuda eager, graph and eager sync run on Device::Cuda(0)
// (libtorch's transformer stays on the CPU and is left out). The kernel
// time is then the compute slices of eager sync's trace, where each op
// instruction launches its kernel and waits for the device: an upper bound
// of the kernels' time (launch and wait included). Before timing, the device
// is also checked against the CPU: eagervm eager trained on the CPU from the
// same parameters, final loss (mean of the last 10 steps) within 1%. A mode
// whose ops lack CUDA kernels prints their Unimplemented status; without
// eager and graph there is nothing to compare or time (exit 3).
//
//   transformer_bench [--corpus=/usr/share/common-licenses/GPL-3]
//       [--check-steps=200] [--steps=5] [--reps=3] [--gen=16] [--batch=4]
//       [--check-only] [--device=cpu|cuda] [--summary=FILE]
//   --summary appends one line per mode to FILE:
//   "transformer<TAB>config<TAB>mode<TAB>ms/step or -<TAB>note"
//
// scripts/models.sh builds and runs it (scripts/models_gpu.sh on a GPU
// machine). Exit 0 ok, 1 a check failed, 2 error, 3 a mode could not run on
// the device (Unimplemented), 77 no corpus or no CUDA device (skipped).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"
#include "models/transformer.h"

namespace eagervm::models {
namespace {

struct Flags {
  std::string corpus = "/usr/share/common-licenses/GPL-3";
  int check_steps = 200;
  int steps = 5;
  int reps = 3;
  int gen = 16;
  int64_t batch = 4;
  bool check_only = false;
  Device device = Device::Cpu();
  std::string summary;  // --summary=FILE: one line per mode appended
  bool child = false;   // internal: the eager sync mode's process
};

bool Parse(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&](const char* name, std::string* v) {
      const size_t n = std::strlen(name);
      if (a.compare(0, n, name) != 0 || a.size() <= n || a[n] != '=') return false;
      *v = a.substr(n + 1);
      return true;
    };
    std::string v;
    if (a == "--check-only") {
      f->check_only = true;
    } else if (a == "--child") {
      f->child = true;
    } else if (val("--corpus", &v)) {
      f->corpus = v;
    } else if (val("--check-steps", &v)) {
      f->check_steps = std::atoi(v.c_str());
    } else if (val("--steps", &v)) {
      f->steps = std::atoi(v.c_str());
    } else if (val("--reps", &v)) {
      f->reps = std::atoi(v.c_str());
    } else if (val("--gen", &v)) {
      f->gen = std::atoi(v.c_str());
    } else if (val("--batch", &v)) {
      f->batch = std::atoll(v.c_str());
    } else if (val("--device", &v)) {
      if (v == "cpu") {
        f->device = Device::Cpu();
      } else if (v == "cuda" || v.rfind("cuda:", 0) == 0) {
        f->device = Device::Cuda(v.size() > 5 ? std::atoi(v.c_str() + 5) : 0);
      } else {
        std::fprintf(stderr, "transformer_bench: --device=%s (cpu, cuda, cuda:N)\n", v.c_str());
        return false;
      }
    } else if (val("--summary", &v)) {
      f->summary = v;
    } else {
      std::fprintf(stderr, "transformer_bench: unknown flag %s (see its top comment)\n", argv[i]);
      return false;
    }
  }
  return f->check_steps > 10 && f->steps > 0 && f->reps > 0 && f->gen > 0 && f->batch > 0;
}

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double MsPerStep(LmTrainer& t, int steps, absl::Status* status) {
  if (absl::Status s = t.Steps(2, nullptr); !s.ok()) *status = s;  // warm-up
  const auto t0 = Clock::now();
  if (absl::Status s = t.Steps(steps, nullptr); !s.ok()) *status = s;
  return MsSince(t0) / steps;
}

std::string LoadAvg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The compute time of op instructions in a Chrome trace (docs/tracing.md),
// in ms: slices of category "compute" other than the runtime's own
// instructions (releases, host reads, copies).
double KernelMsInTrace(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string json = ss.str();
  double us = 0;
  for (size_t at = json.find('{'); at != std::string::npos; at = json.find('{', at + 1)) {
    const size_t end = json.find('}', at);
    if (end == std::string::npos) break;
    const std::string e = json.substr(at, end - at);
    if (e.find("\"cat\":\"compute\"") == std::string::npos) continue;
    const size_t name = e.find("\"name\":\"");
    const std::string n = name == std::string::npos ? "" : e.substr(name + 8, 32);
    if (n.rfind("ReleaseTensor", 0) == 0 || n.rfind("AccessBlob", 0) == 0 ||
        n.rfind("Copy", 0) == 0)
      continue;
    const size_t dur = e.find("\"dur\":");
    if (dur != std::string::npos) us += std::strtod(e.c_str() + dur + 6, nullptr);
  }
  return us / 1000.0;
}

LmConfig Config(const Flags& f) {
  LmConfig c;
  c.batch = f.batch;
  c.device = f.device;
  return c;
}

// The eager sync mode's process: ms per step, then the kernel time per step
// from a trace of the same number of steps.
int Child(const Flags& f, const Corpus& corpus) {
  absl::StatusOr<std::unique_ptr<LmTrainer>> t = MakeEagervmLm(Config(f), corpus, false);
  if (!t.ok()) {
    std::fprintf(stderr, "eager sync: %s\n", t.status().ToString().c_str());
    return 2;
  }
  absl::Status s;
  const double ms = MsPerStep(**t, f.steps, &s);
  if (!s.ok()) {
    std::fprintf(stderr, "eager sync: %s\n", s.ToString().c_str());
    return 2;
  }
  if (std::getenv("TRANSFORMER_STATS") != nullptr)  // the VM's counters after the timed steps
    std::fprintf(stderr, "%s\n", VirtualMachine::Get().GetStats().ToString().c_str());
  const std::string path = "/tmp/transformer_bench." + std::to_string(getpid()) + ".json";
  if (!StartTrace().ok()) return 2;
  s = (*t)->Steps(f.steps, nullptr);
  if (!s.ok() || !StopTrace(path).ok()) return 2;
  const double kernel_ms = KernelMsInTrace(path) / f.steps;
  std::remove(path.c_str());
  std::printf("ms %.6f kernel %.6f\n", ms, kernel_ms);
  return 0;
}

bool RunChild(const Flags& f, double* ms, double* kernel_ms) {
  const std::string cmd =
      "EAGERVM_SYNCHRONOUS=1 /proc/" + std::to_string(getpid()) +
      "/exe --child --corpus=" + f.corpus + " --steps=" + std::to_string(f.steps) +
      " --batch=" + std::to_string(f.batch) + " --device=" + f.device.ToString();
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return false;
  const bool read = std::fscanf(p, "ms %lf kernel %lf", ms, kernel_ms) == 2;
  return pclose(p) == 0 && read;
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

enum Mode { kEager, kGraph, kTorch, kTrainers, kSync = kTrainers, kKernel, kModes };
const char* const kModeNames[kModes] = {"eagervm eager", "eagervm graph", "libtorch (1 thread)",
                                        "eagervm eager sync", "kernel time"};

double TailMean(const std::vector<float>& v) {
  double s = 0;
  for (size_t i = v.size() - 10; i < v.size(); ++i) s += v[i];
  return s / 10;
}

// The device against the CPU: eagervm eager trained on the CPU from the same
// parameters on the same batches; the final loss (mean of the last 10
// steps) within 1% of the device's. Prints the check; false if it failed.
bool CheckAgainstCpu(const Flags& f, const Corpus& corpus, const std::vector<float>& curve) {
  LmConfig cc = Config(f);
  cc.device = Device::Cpu();
  absl::StatusOr<std::unique_ptr<LmTrainer>> t = MakeEagervmLm(cc, corpus, false);
  std::vector<float> cpu;
  absl::Status s = t.status();
  if (s.ok()) s = (*t)->Steps(f.check_steps, &cpu);
  if (!s.ok()) {
    std::fprintf(stderr, "eagervm eager on the CPU: %s\n", s.ToString().c_str());
    return false;
  }
  double worst = 0;
  for (size_t k = 0; k < cpu.size() && k < curve.size(); ++k)
    worst = std::max(worst, std::fabs(double{curve[k]} - cpu[k]) / std::fabs(double{cpu[k]}));
  const double here = TailMean(curve), there = TailMean(cpu);
  const bool close = std::fabs(here - there) <= 0.01 * there;
  std::printf(
      "check: eagervm eager on %s: final loss (mean of the last 10 steps) %.4f, on the CPU %.4f "
      "(band 1%%): %s; the curves differ by at most %.1e (relative)\n",
      f.device.ToString().c_str(), here, there, close ? "within" : "OUTSIDE", worst);
  return close;
}

int Run(const Flags& f, const Corpus& corpus) {
  const LmConfig c = Config(f);
  const bool cpu = f.device.is_cpu();
  const std::string dev = f.device.ToString();
  std::printf(
      "\n== transformer LM: %lld layers, d %lld, %lld heads, context %lld, batch %lld, Adam lr "
      "%g; %s (%zu characters, vocabulary %zu)%s\n",
      static_cast<long long>(c.layers), static_cast<long long>(c.d),
      static_cast<long long>(c.heads), static_cast<long long>(c.context),
      static_cast<long long>(c.batch), c.lr, corpus.path.c_str(), corpus.ids.size(),
      corpus.vocab.size(), cpu ? "" : (" on " + dev).c_str());
  std::unique_ptr<LmTrainer> t[kTrainers];
  std::string left_out[kModes];  // why a mode did not run on this device
  bool failed = false;
  // A mode that cannot run (Unimplemented: its ops have no kernel on this
  // device) or failed: said, and left out.
  auto leave_out = [&](Mode m, const absl::Status& s) {
    const bool missing = absl::IsUnimplemented(s);
    std::printf("%s: %s on %s: %s\n", kModeNames[m], missing ? "not run" : "FAILED", dev.c_str(),
                s.ToString().c_str());
    left_out[m] = s.ToString();
    if (m < kTrainers) t[m] = nullptr;
    failed |= !missing;
  };
  auto summary = [&](const double* med) {
    if (f.summary.empty()) return;
    FILE* out = std::fopen(f.summary.c_str(), "a");
    if (out == nullptr) return;
    const std::string label = "d" + std::to_string(c.d) + " x" + std::to_string(c.layers) +
                              ", ctx " + std::to_string(c.context) + ", b" +
                              std::to_string(c.batch);
    for (int m = 0; m < kModes; ++m) {
      if (m == kTorch && !cpu) continue;
      if (med != nullptr && !std::isnan(med[m])) {
        std::fprintf(out, "transformer\t%s\t%s (%s)\t%.3f\t%s\n", label.c_str(), kModeNames[m],
                     dev.c_str(), med[m],
                     m == kKernel && !cpu ? "upper bound: launch + wait per op" : "");
      } else if (!left_out[m].empty()) {
        std::fprintf(out, "transformer\t%s\t%s (%s)\t-\t%s\n", label.c_str(), kModeNames[m],
                     dev.c_str(), left_out[m].substr(0, 160).c_str());
      }
    }
    std::fclose(out);
  };
  for (Mode m : {kEager, kGraph, kTorch}) {
    absl::StatusOr<std::unique_ptr<LmTrainer>> tr =
        m == kTorch ? MakeTorchLm(c, corpus) : MakeEagervmLm(c, corpus, m == kGraph);
    if (m == kTorch && absl::IsUnimplemented(tr.status())) {
      std::printf("(libtorch: %s)\n", tr.status().ToString().c_str());
      continue;
    }
    if (!tr.ok()) {
      leave_out(m, tr.status());
      continue;
    }
    t[m] = *std::move(tr);
  }

  // Correctness: the same initial parameters and batches.
  std::vector<float> curve[kTrainers];
  double train_ms[kTrainers] = {};
  for (Mode m : {kEager, kGraph, kTorch}) {
    if (t[m] == nullptr) continue;
    const auto t0 = Clock::now();
    const int n = f.check_steps - static_cast<int>(t[m]->steps_done());
    if (absl::Status s = t[m]->Steps(n, &curve[m]); !s.ok()) {
      leave_out(m, s);
      continue;
    }
    train_ms[m] = MsSince(t0);
  }
  if (t[kEager] == nullptr || t[kGraph] == nullptr) {
    // The sync child would fail as eager did.
    if (!left_out[kEager].empty()) left_out[kSync] = left_out[kKernel] = left_out[kEager];
    std::printf("eagervm eager or graph did not run on %s: nothing to compare or time\n",
                dev.c_str());
    summary(nullptr);
    return failed ? 2 : 3;
  }
  const bool have_torch = t[kTorch] != nullptr;
  std::printf("loss curve (step: eager graph%s)\n", have_torch ? " libtorch" : "");
  for (int i = 0; i < f.check_steps; i += std::max(1, f.check_steps / 12)) {
    std::printf("  %4d: %.4f %.4f", i, curve[kEager][i], curve[kGraph][i]);
    if (have_torch) std::printf(" %.4f", curve[kTorch][i]);
    std::printf("\n");
  }
  bool ok = curve[kGraph] == curve[kEager];
  std::printf("check: graph loss curve (%d steps) %s eager's\n", f.check_steps,
              ok ? "bitwise equal to" : "DIFFERS from");
  const double eager_final = TailMean(curve[kEager]);
  if (have_torch) {
    const double torch_final = TailMean(curve[kTorch]);
    const bool close = std::fabs(eager_final - torch_final) <= 0.02 * torch_final;
    std::printf(
        "check: final loss (mean of the last 10 steps) eagervm %.4f, libtorch %.4f (band 2%%): "
        "%s\n",
        eager_final, torch_final, close ? "within" : "OUTSIDE");
    ok &= close;
  }
  if (!cpu) ok &= CheckAgainstCpu(f, corpus, curve[kEager]);
  std::printf(
      "training wall time (%d steps, with the loss read back): eager %.0f ms, graph %.0f ms",
      f.check_steps, train_ms[kEager], train_ms[kGraph]);
  if (have_torch) std::printf(", libtorch %.0f ms", train_ms[kTorch]);
  std::printf("\n");
  // Inference: greedy generation, the prompt the corpus' first context.
  const std::vector<int64_t> prompt(corpus.ids.begin(), corpus.ids.begin() + c.context);
  std::vector<int64_t> text[kTrainers];
  for (Mode m : {kEager, kGraph, kTorch}) {
    if (t[m] == nullptr) continue;
    if (absl::Status s = t[m]->Generate(prompt, f.gen, &text[m]); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", kModeNames[m], s.ToString().c_str());
      return 2;
    }
  }
  std::string sample;
  for (int64_t id : text[kEager]) sample.push_back(corpus.vocab[static_cast<size_t>(id)]);
  for (char& ch : sample) ch = (ch == '\n') ? ' ' : ch;
  std::printf("check: graph generates %s eager's text: \"%s\"\n",
              text[kGraph] == text[kEager] ? "the same as" : "DIFFERENT text from", sample.c_str());
  ok &= text[kGraph] == text[kEager];
  // A failed check ends the run on the CPU; on a device (a GPU machine is
  // borrowed for one run) the modes are timed all the same, and it exits 1.
  if (f.check_only || (!ok && cpu)) {
    summary(nullptr);
    return ok ? 0 : 1;
  }
  if (!ok) std::printf("a check FAILED: timing all the same (exit 1)\n");

  std::vector<double> ms[kModes], gen_ms[kTrainers];
  const std::string load_before = LoadAvg();
  for (int rep = 0; rep < f.reps; ++rep) {
    for (int i = 0; i < kTrainers + 1; ++i) {
      const int m = (i + rep) % (kTrainers + 1);
      if (m == kSync) {
        double v = 0, k = 0;
        if (!RunChild(f, &v, &k)) {
          std::fprintf(stderr, "eager sync: the child process failed\n");
          return 2;
        }
        ms[kSync].push_back(v);
        ms[kKernel].push_back(k);
        continue;
      }
      if (t[m] == nullptr) continue;
      absl::Status s;
      ms[m].push_back(MsPerStep(*t[m], f.steps, &s));
      std::vector<int64_t> out;
      const auto t0 = Clock::now();
      if (s.ok()) s = t[m]->Generate(prompt, f.gen, &out);
      gen_ms[m].push_back(MsSince(t0));
      if (!s.ok()) {
        std::fprintf(stderr, "%s: %s\n", kModeNames[m], s.ToString().c_str());
        return 2;
      }
    }
  }
  double med[kModes];
  for (int m = 0; m < kModes; ++m) med[m] = Median(ms[m]);
  if (!(med[kKernel] > 0)) med[kKernel] = NAN;  // a trace without compute slices
  std::printf("%d reps x %d steps per mode, alternating; load average %s (before), %s (after)\n",
              f.reps, f.steps, load_before.c_str(), LoadAvg().c_str());
  if (!cpu) {
    std::printf(
        "kernel time on %s: eager sync's op instructions in its trace, each a launch and a wait "
        "for the device: an upper bound of the kernels' time\n",
        dev.c_str());
  }
  std::printf("%-22s %9s %10s %10s %10s %12s\n", "mode", "ms/step", "vs kernel", "vs torch",
              "vs sync", "gen tok/s");
  for (int m = 0; m < kModes; ++m) {
    if (ms[m].empty() || std::isnan(med[m])) continue;
    std::printf("%-22s %9.3f", kModeNames[m], med[m]);
    if (std::isnan(med[kKernel]))
      std::printf(" %10s", "-");
    else
      std::printf(" %9.2fx", med[m] / med[kKernel]);
    if (have_torch)
      std::printf(" %9.2fx", med[m] / med[kTorch]);
    else
      std::printf(" %10s", "-");
    std::printf(" %9.2fx", med[m] / med[kSync]);
    if (m < kTrainers && !gen_ms[m].empty())
      std::printf(" %12.0f", f.gen / (Median(gen_ms[m]) / 1000.0));
    std::printf("\n");
  }
  summary(med);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace eagervm::models

int main(int argc, char** argv) {
  using namespace eagervm::models;
  Flags f;
  if (!Parse(argc, argv, &f)) return 2;
  if (!f.device.is_cpu() && eagervm::CudaDeviceCount() <= f.device.index()) {
    std::fprintf(stderr,
                 "transformer_bench: --device=%s: no such CUDA device here (CudaDeviceCount() is "
                 "%d: no GPU, no driver, or built without the CUDA backend); skipped\n",
                 f.device.ToString().c_str(), eagervm::CudaDeviceCount());
    return 77;
  }
  absl::StatusOr<Corpus> corpus = LoadCorpus(f.corpus);
  if (!corpus.ok()) {
    std::fprintf(stderr, "%s\n", corpus.status().ToString().c_str());
    return absl::IsNotFound(corpus.status()) ? 77 : 2;  // 77: skipped (ctest SKIP_RETURN_CODE)
  }
  if (f.child) return Child(f, *corpus);
  return Run(f, *corpus);
}
