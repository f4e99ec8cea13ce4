// The models suite's MLP: trains the 2-layer MLP of mlp.h on the digits data
// set in every mode and times them side by side in one alternating run:
//
//   kernel time     eagervm's kernels called directly, no runtime (the limit)
//   eager           eagervm eagerly, the process's default VM
//   eager sync      eagervm eagerly with EAGERVM_SYNCHRONOUS=1 (a child
//                   process: the VM's mode is per process)
//   eager queued    eagervm eagerly with EAGERVM_DONATE_MAX_BYTES=0: every
//                   op queued to the VM's threads (a child process)
//   graph           eagervm, the step captured once as a Graph and replayed
//   libtorch        the same program in libtorch's C++ API, one thread
//   ... autograd    eager, graph and libtorch again with the gradients by
//                   autograd and an SGD optimizer (autograd::Backward,
//                   optim::Sgd; libtorch's autograd and torch::optim::SGD)
//
// Each rep runs every mode for --steps steps (after 10 warm-up steps), in an
// order that rotates from rep to rep; the table gives the median ms per step
// and the ratios. Before timing, each mode trains --check-steps steps from
// the same initial parameters, and the run fails (exit 1) unless eager,
// eager sync, eager queued, graph and the kernel loop give bitwise the same loss curve,
// and libtorch's final loss and accuracy on the whole data set are within
// 1% (relative) and 1 percentage point of eager's. The autograd modes start
// one step later (their trainers take a step when made): autograd graph must
// give bitwise autograd eager's curve, and autograd eager's and libtorch
// autograd's whole-data-set loss and accuracy must be within the same band
// of hand-written eager's.
//
//   mlp_bench [--sizes=small,large] [--reps=7] [--steps=0 (per size)]
//             [--check-steps=100] [--check-only]
//   mlp_bench --count=eager|autograd|graph|kernel [--sizes=small|large] [--steps=100]
//             one mode alone (hand-written gradients but autograd), untimed:
//             instructions per step under callgrind
//             (scripts/profile_autograd_step.sh, scripts/profile_models.sh)
//
// small: 64 -> 128 -> 10, batch 64; large: 64 -> 512 -> 10, batch 256.
// scripts/models.sh builds and runs it. Exit 0 ok, 1 a check failed, 2 error.
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
#include "models/digits.h"
#include "models/mlp.h"

namespace eagervm::models {
namespace {

struct Flags {
  std::vector<std::string> sizes = {"small", "large"};
  int reps = 7;
  int steps = 0;
  int check_steps = 100;
  bool check_only = false;
  // --count=eager|autograd|graph|kernel: only that mode (hand-written eager, or eager
  // autograd), in this process, --steps steps after 10 warm-up steps, no
  // timing or checks: for instruction counts under callgrind.
  std::string count;
  // Internal: the child process of the eager sync mode.
  bool child = false;
  int64_t hidden = 0, batch = 0;
};

bool Parse(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
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
    } else if (val("--count", &v)) {
      f->count = v;
    } else if (val("--sizes", &v)) {
      f->sizes.clear();
      std::stringstream ss(v);
      for (std::string s; std::getline(ss, s, ',');) f->sizes.push_back(s);
    } else if (val("--reps", &v)) {
      f->reps = std::atoi(v.c_str());
    } else if (val("--steps", &v)) {
      f->steps = std::atoi(v.c_str());
    } else if (val("--check-steps", &v)) {
      f->check_steps = std::atoi(v.c_str());
    } else if (val("--hidden", &v)) {
      f->hidden = std::atoll(v.c_str());
    } else if (val("--batch", &v)) {
      f->batch = std::atoll(v.c_str());
    } else {
      std::fprintf(stderr, "mlp_bench: unknown flag %s (see the top of mlp_bench.cc)\n", argv[i]);
      return false;
    }
  }
  return f->reps > 0 && f->steps >= 0 && f->check_steps > 0;
}

double MsPerStep(MlpTrainer& t, int steps, absl::Status* status) {
  if (absl::Status s = t.Steps(10, nullptr); !s.ok()) *status = s;  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  if (absl::Status s = t.Steps(steps, nullptr); !s.ok()) *status = s;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
         steps;
}

std::string LoadAvg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The child of the eager sync mode: its loss curve, then one timed block.
int Child(const Flags& f, const Digits& d) {
  MlpConfig c;
  c.hidden = f.hidden;
  c.batch = f.batch;
  absl::StatusOr<std::unique_ptr<MlpTrainer>> t = MakeEagervmTrainer(c, d, /*graph=*/false);
  if (!t.ok()) return 2;
  std::vector<float> losses;
  if (!(*t)->Steps(f.check_steps, &losses).ok()) return 2;
  std::printf("losses");
  for (float l : losses) std::printf(" %a", l);
  absl::Status s;
  const double ms = MsPerStep(**t, f.steps, &s);
  if (!s.ok()) return 2;
  std::printf("\nms %.6f\n", ms);
  if (std::getenv("MLP_STATS") != nullptr)
    std::fprintf(stderr, "%s\n", VirtualMachine::Get().GetStats().ToString().c_str());
  return 0;
}

// Runs a child with the environment `env` (a mode of the VM); fills
// `losses` (when not null) and returns ms/step, or a negative number on
// failure.
double RunChild(const char* env, const MlpConfig& c, const Flags& f, int steps,
                std::vector<float>* losses) {
  const std::string cmd =
      std::string(env) + " /proc/" + std::to_string(getpid()) +
      "/exe --child --hidden=" + std::to_string(c.hidden) + " --batch=" + std::to_string(c.batch) +
      " --steps=" + std::to_string(steps) + " --check-steps=" + std::to_string(f.check_steps);
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  if (pclose(p) != 0) return -1;
  std::istringstream in(out);
  std::string word;
  double ms = -1;
  while (in >> word) {
    if (word == "losses") continue;
    if (word == "ms") {
      in >> ms;
      break;
    }
    if (losses != nullptr) losses->push_back(std::strtof(word.c_str(), nullptr));
  }
  return ms;
}

enum Mode {
  kKernel,
  kEager,
  kSync,
  kQueued,
  kGraph,
  kTorch,
  kEagerAutograd,
  kGraphAutograd,
  kTorchAutograd,
  kModes
};
const char* const kModeNames[kModes] = {
    "kernel time",      "eagervm eager",       "eagervm eager sync",     "eagervm eager queued",
    "eagervm graph",    "libtorch (1 thread)", "eagervm eager autograd", "eagervm graph autograd",
    "libtorch autograd"};
constexpr Mode kInProcess[] = {kKernel,        kEager,         kGraph,        kTorch,
                               kEagerAutograd, kGraphAutograd, kTorchAutograd};
bool IsTorch(Mode m) { return m == kTorch || m == kTorchAutograd; }
// The environment of the modes run in a child process.
const char* ChildEnv(Mode m) {
  return m == kSync ? "EAGERVM_SYNCHRONOUS=1" : "EAGERVM_DONATE_MAX_BYTES=0";
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Checks one size and times it; returns the exit code.
int RunSize(const std::string& size, const Flags& f, const Digits& d) {
  MlpConfig c;
  int steps = f.steps;
  if (size == "small") {
    c.hidden = 128, c.batch = 64;
    if (steps == 0) steps = 400;
  } else if (size == "large") {
    c.hidden = 512, c.batch = 256;
    if (steps == 0) steps = 60;
  } else {
    std::fprintf(stderr, "mlp_bench: unknown size %s (small, large)\n", size.c_str());
    return 2;
  }
  std::printf("\n== MLP 64 -> %lld -> 10, batch %lld, lr %g: digits (%lld rows, %lld batches)\n",
              static_cast<long long>(c.hidden), static_cast<long long>(c.batch), c.lr,
              static_cast<long long>(d.size()), static_cast<long long>(d.size() / c.batch));
  std::unique_ptr<MlpTrainer> t[kModes];
  MlpConfig ca = c;
  ca.autograd = true;
  auto make = [&](Mode m) -> absl::StatusOr<std::unique_ptr<MlpTrainer>> {
    switch (m) {
      case kEagerAutograd:
        return MakeEagervmTrainer(ca, d, false);
      case kGraphAutograd:
        return MakeEagervmTrainer(ca, d, true);
      case kTorchAutograd:
        return MakeTorchTrainer(ca, d);
      case kKernel:
        return MakeKernelTrainer(c, d);
      case kEager:
        return MakeEagervmTrainer(c, d, false);
      case kGraph:
        return MakeEagervmTrainer(c, d, true);
      case kTorch:
        return MakeTorchTrainer(c, d);
      default:
        return absl::InternalError("no in-process trainer");
    }
  };
  bool have_torch = true;
  for (Mode m : kInProcess) {
    absl::StatusOr<std::unique_ptr<MlpTrainer>> tr = make(m);
    if (IsTorch(m) && absl::IsUnimplemented(tr.status())) {
      std::printf("(libtorch: %s)\n", tr.status().ToString().c_str());
      have_torch = false;
      continue;
    }
    if (!tr.ok()) {
      std::fprintf(stderr, "%s: %s\n", kModeNames[m], tr.status().ToString().c_str());
      return 2;
    }
    t[m] = *std::move(tr);
  }

  // Correctness, from the same initial parameters.
  std::vector<float> curve[kModes];
  for (Mode m : kInProcess) {
    if (t[m] == nullptr) continue;
    if (absl::Status s = t[m]->Steps(f.check_steps, &curve[m]); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", kModeNames[m], s.ToString().c_str());
      return 2;
    }
  }
  for (Mode m : {kSync, kQueued}) {
    if (RunChild(ChildEnv(m), c, f, 1, &curve[m]) < 0) {
      std::fprintf(stderr, "%s: the child process failed\n", kModeNames[m]);
      return 2;
    }
  }
  bool ok = true;
  for (Mode m : {kGraph, kSync, kQueued, kKernel, kGraphAutograd}) {
    const Mode ref = m == kGraphAutograd ? kEagerAutograd : kEager;
    const bool same = curve[m] == curve[ref];
    std::printf("check: %s loss curve (%d steps) %s %s's\n", kModeNames[m], f.check_steps,
                same ? "bitwise equal to" : "DIFFERS from", kModeNames[ref]);
    ok &= same;
  }
  // Autograd's step k is the hand-written trainers' step k + 1: the same
  // arithmetic in another order, so equal to float32 rounding.
  for (Mode m : {kEagerAutograd, kTorchAutograd}) {
    if (t[m] == nullptr) continue;
    const Mode ref = m == kEagerAutograd ? kEager : kTorch;
    double worst = 0;
    for (size_t k = 0; k + 1 < curve[m].size() && k + 1 < curve[ref].size(); ++k) {
      worst = std::max(worst, std::fabs(double{curve[m][k]} - curve[ref][k + 1]) /
                                  std::fabs(double{curve[ref][k + 1]}));
    }
    const bool close = worst <= 1e-4;
    std::printf("check: %s loss curve within %.1e (relative, bound 1e-4) of %s's: %s\n",
                kModeNames[m], worst, kModeNames[ref], close ? "yes" : "NO");
    ok &= close;
  }
  std::printf("check: loss at step 0 %.5f, step %d %.5f\n", curve[kEager].front(),
              f.check_steps - 1, curve[kEager].back());
  float eager_loss = 0, eager_acc = 0;
  if (absl::Status s = t[kEager]->Evaluate(&eager_loss, &eager_acc); !s.ok()) {
    std::fprintf(stderr, "evaluate: %s\n", s.ToString().c_str());
    return 2;
  }
  std::printf("check: whole data set after %d steps: eagervm eager loss %.5f accuracy %.2f%%\n",
              f.check_steps, eager_loss, 100 * eager_acc);
  // libtorch against eagervm after as many steps: hand-written against
  // eager, autograd against eager autograd (one step further).
  float ref_loss[kModes] = {}, ref_acc[kModes] = {};
  ref_loss[kEager] = eager_loss, ref_acc[kEager] = eager_acc;
  for (Mode m : {kEagerAutograd, kTorch, kTorchAutograd}) {
    if (t[m] == nullptr) continue;
    float loss = 0, acc = 0;
    (void)t[m]->Evaluate(&loss, &acc);
    ref_loss[m] = loss, ref_acc[m] = acc;
    if (m == kEagerAutograd) continue;
    const Mode ref = m == kTorch ? kEager : kEagerAutograd;
    const bool close = std::fabs(loss - ref_loss[ref]) <= 0.01f * std::fabs(loss) &&
                       std::fabs(acc - ref_acc[ref]) <= 0.01f;
    std::printf(
        "check: %s: loss %.5f accuracy %.2f%%, %s's %.5f %.2f%% (band: 1%% of the loss, 1 point "
        "of accuracy): %s\n",
        kModeNames[m], loss, 100 * acc, kModeNames[ref], ref_loss[ref], 100 * ref_acc[ref],
        close ? "within" : "OUTSIDE");
    ok &= close;
  }
  if (!ok) return 1;
  if (f.check_only) return 0;

  // Timing, alternating.
  std::vector<double> ms[kModes];
  const std::string load_before = LoadAvg();
  for (int rep = 0; rep < f.reps; ++rep) {
    for (int i = 0; i < kModes; ++i) {
      const Mode m = static_cast<Mode>((i + rep) % kModes);
      if (m == kSync || m == kQueued) {
        const double v = RunChild(ChildEnv(m), c, f, steps, nullptr);
        if (v < 0) return 2;
        ms[m].push_back(v);
        continue;
      }
      if (t[m] == nullptr) continue;
      absl::Status s;
      ms[m].push_back(MsPerStep(*t[m], steps, &s));
      if (!s.ok()) {
        std::fprintf(stderr, "%s: %s\n", kModeNames[m], s.ToString().c_str());
        return 2;
      }
    }
  }
  double med[kModes];
  for (int m = 0; m < kModes; ++m) med[m] = Median(ms[m]);
  std::printf("%d reps x %d steps per mode, alternating; load average %s (before), %s (after)\n",
              f.reps, steps, load_before.c_str(), LoadAvg().c_str());
  std::printf("%-22s %9s %10s %10s %10s\n", "mode", "ms/step", "vs kernel", "vs torch", "vs sync");
  for (int m = 0; m < kModes; ++m) {
    if (ms[m].empty()) continue;
    std::printf("%-22s %9.4f %9.2fx", kModeNames[m], med[m], med[m] / med[kKernel]);
    if (have_torch)
      std::printf(" %9.2fx", med[m] / med[kTorch]);
    else
      std::printf(" %10s", "-");
    std::printf(" %9.2fx\n", med[m] / med[kSync]);
  }
  std::printf("autograd vs hand-written gradients: eagervm eager %.2fx, eagervm graph %.2fx",
              med[kEagerAutograd] / med[kEager], med[kGraphAutograd] / med[kGraph]);
  if (have_torch) {
    std::printf(", libtorch %.2fx; eagervm eager autograd vs libtorch autograd %.2fx",
                med[kTorchAutograd] / med[kTorch], med[kEagerAutograd] / med[kTorchAutograd]);
  }
  std::printf("\n");
  return 0;
}

}  // namespace
// --count: one mode alone, for callgrind (instructions per step).
int Count(const Flags& f, const Digits& d) {
  MlpConfig c;
  const bool large = !f.sizes.empty() && f.sizes[0] == "large";
  c.hidden = large ? 512 : 128;
  c.batch = large ? 256 : 64;
  c.autograd = f.count == "autograd";
  if (!c.autograd && f.count != "eager" && f.count != "graph" && f.count != "kernel") {
    std::fprintf(stderr, "mlp_bench: --count=%s (eager, autograd, graph, kernel)\n",
                 f.count.c_str());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<MlpTrainer>> t =
      f.count == "kernel" ? MakeKernelTrainer(c, d)
                          : MakeEagervmTrainer(c, d, /*graph=*/f.count == "graph");
  absl::Status s = t.status();
  if (s.ok()) s = (*t)->Steps(10, nullptr);
  const int steps = f.steps > 0 ? f.steps : 100;
  const uint64_t before = VirtualMachine::Get().GetStats().received;
  if (s.ok()) s = (*t)->Steps(steps, nullptr);
  const uint64_t mid = VirtualMachine::Get().GetStats().received;
  if (s.ok()) s = (*t)->Steps(1, nullptr);  // the per-Steps() cost (its Sync) alone
  const uint64_t after = VirtualMachine::Get().GetStats().received;
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 2;
  }
  // (mid - before) = steps * per_step + sync, (after - mid) = per_step + sync.
  std::fprintf(stderr, "%s: %.2f VM instructions per step\n", f.count.c_str(),
               static_cast<double>((mid - before) - (after - mid)) / std::max(steps - 1, 1));
  return 0;
}

}  // namespace eagervm::models

int main(int argc, char** argv) {
  using namespace eagervm::models;
  Flags f;
  if (!Parse(argc, argv, &f)) return 2;
  absl::StatusOr<Digits> d = LoadDigits();
  if (!d.ok()) {
    std::fprintf(stderr, "%s\n", d.status().ToString().c_str());
    return absl::IsNotFound(d.status()) ? 77 : 2;  // 77: skipped (ctest SKIP_RETURN_CODE)
  }
  if (f.child) return Child(f, *d);
  if (!f.count.empty()) return Count(f, *d);
  int rc = 0;
  for (const std::string& s : f.sizes) rc = std::max(rc, RunSize(s, f, *d));
  return rc;
}
