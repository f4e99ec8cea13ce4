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
// With --device=cuda the eagervm modes run on Device::Cuda(0) (data,
// parameters and every op there), plus "eagervm graph flat" (the graph with
// GraphOptions::device_graphs off: each kernel launched by the flat executor,
// no CUDA graph); the kernel-time loop (CPU kernels) is skipped with a line
// saying so, and the graph (one CUDA graph launch per step) is the nearest to
// kernel time: the table's first ratio is against it. libtorch runs on CUDA
// only where it was built with CUDA. The eager sync and queued children are
// timed in one process each (--reps blocks), not alternated. A mode whose
// ops lack CUDA kernels prints their Unimplemented status and is left out;
// the others go on (exit 3 if nothing else failed). The checks are the same,
// plus the device against the CPU: eagervm eager (and eager autograd) on the
// CPU from the same parameters, the curve within 1e-3 (relative, per step)
// and the whole-data-set loss and accuracy within the band below. A failed
// check does not stop the timing there (one run on a borrowed GPU machine
// should give every number), but the exit is 1 all the same.
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
//             [--check-steps=100] [--check-only] [--device=cpu|cuda]
//             [--digits=PATH (kDigitsPath)] [--summary=FILE]
//             --summary appends one line per mode and size to FILE:
//             "mlp<TAB>size<TAB>mode<TAB>ms/step or -<TAB>note"
//   mlp_bench --count=eager|autograd|graph|kernel [--sizes=small|large] [--steps=100]
//             one mode alone (hand-written gradients but autograd), untimed:
//             instructions per step under callgrind
//             (scripts/profile_autograd_step.sh, scripts/profile_models.sh)
//
// small: 64 -> 128 -> 10, batch 64; large: 64 -> 512 -> 10, batch 256.
// scripts/models.sh builds and runs it (scripts/models_gpu.sh on a GPU
// machine). Exit 0 ok, 1 a check failed, 2 error, 3 some mode could not run
// on the device (Unimplemented), 77 no data set or no CUDA device (skipped).
#include "models/mlp_bench.h"

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

#include "absl/strings/str_cat.h"
#include "eagervm/eagervm.h"
#include "models/digits.h"
#include "models/mlp.h"

namespace eagervm::models {
namespace {

bool ParseDevice(const std::string& v, Device* d) {
  if (v == "cpu") {
    *d = Device::Cpu();
    return true;
  }
  if (v == "cuda" || v.rfind("cuda:", 0) == 0) {
    *d = Device::Cuda(v.size() > 5 ? std::atoi(v.c_str() + 5) : 0);
    return true;
  }
  return false;
}

bool Parse(int argc, char** argv, MlpBenchFlags* f) {
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
    } else if (val("--device", &v)) {
      if (!ParseDevice(v, &f->device)) {
        std::fprintf(stderr, "mlp_bench: --device=%s (cpu, cuda, cuda:N)\n", v.c_str());
        return false;
      }
    } else if (val("--digits", &v)) {
      f->digits = v;
    } else if (val("--summary", &v)) {
      f->summary = v;
    } else {
      std::fprintf(stderr, "mlp_bench: unknown flag %s (see the top of mlp_bench.cc)\n", argv[i]);
      return false;
    }
  }
  // The child takes --reps=0 (losses only).
  return f->reps >= (f->child ? 0 : 1) && f->steps >= 0 && f->check_steps > 0;
}

std::string LoadAvg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

enum Mode {
  kKernel,
  kEager,
  kSync,
  kQueued,
  kGraph,
  kGraphFlat,
  kTorch,
  kEagerAutograd,
  kGraphAutograd,
  kTorchAutograd,
  kModes
};
const char* const kModeNames[kModes] = {
    "kernel time",          "eagervm eager",          "eagervm eager sync",
    "eagervm eager queued", "eagervm graph",          "eagervm graph flat",
    "libtorch (1 thread)",  "eagervm eager autograd", "eagervm graph autograd",
    "libtorch autograd"};
constexpr Mode kInProcess[] = {kKernel, kEager,         kGraph,         kGraphFlat,
                               kTorch,  kEagerAutograd, kGraphAutograd, kTorchAutograd};
bool IsTorch(Mode m) { return m == kTorch || m == kTorchAutograd; }
const char* ModeName(Mode m, Device dev) {
  if (m == kTorch && !dev.is_cpu()) return "libtorch cuda";
  return kModeNames[m];
}
// The environment of the modes run in a child process.
const char* ChildEnv(Mode m) {
  return m == kSync ? "EAGERVM_SYNCHRONOUS=1" : "EAGERVM_DONATE_MAX_BYTES=0";
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Exit codes by severity: 0 < 3 (a mode left out) < 1 (a check failed) < 2.
int Worse(int a, int b) {
  auto rank = [](int rc) { return rc == 3 ? 1 : rc == 1 ? 2 : rc == 0 ? 0 : 3; };
  return rank(a) >= rank(b) ? a : b;
}

// Checks one size and times it; returns the exit code.
int RunSize(const std::string& size, const MlpBenchFlags& f, const Digits& d) {
  MlpConfig c;
  c.device = f.device;
  const bool cpu = f.device.is_cpu();
  const std::string dev = f.device.ToString();
  int steps = f.steps;
  if (size == "small") {
    c.hidden = 128, c.batch = 64;
    if (steps == 0) steps = 400;
  } else if (size == "large") {
    c.hidden = 512, c.batch = 256;
    if (steps == 0) steps = cpu ? 60 : 200;  // a GPU step is short: more of them
  } else {
    std::fprintf(stderr, "mlp_bench: unknown size %s (small, large)\n", size.c_str());
    return 2;
  }
  std::printf("\n== MLP 64 -> %lld -> 10, batch %lld, lr %g: digits (%lld rows, %lld batches)%s\n",
              static_cast<long long>(c.hidden), static_cast<long long>(c.batch), c.lr,
              static_cast<long long>(d.size()), static_cast<long long>(d.size() / c.batch),
              cpu ? "" : (" on " + dev).c_str());
  std::unique_ptr<MlpTrainer> t[kModes];
  std::string left_out[kModes];  // why a mode did not run on this device
  MlpConfig ca = c;
  ca.autograd = true;
  MlpConfig cf = c;
  cf.device_graphs = false;
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
      case kGraphFlat:
        return MakeEagervmTrainer(cf, d, true);
      case kTorch:
        return MakeTorchTrainer(c, d);
      default:
        return absl::InternalError("no in-process trainer");
    }
  };
  // A mode that cannot run (its ops have no kernel on this device:
  // Unimplemented) or failed: said, and left out; the others go on, so that
  // one run on a GPU machine shows every mode that works.
  bool failed = false;
  auto leave_out = [&](Mode m, const absl::Status& s) {
    const bool missing = absl::IsUnimplemented(s);
    std::printf("%s: %s on %s: %s\n", ModeName(m, f.device), missing ? "not run" : "FAILED",
                dev.c_str(), s.ToString().c_str());
    left_out[m] = s.ToString();
    t[m] = nullptr;
    failed |= !missing;
  };
  bool have_torch = true;
  for (Mode m : kInProcess) {
    if (m == kGraphFlat && cpu) continue;  // device_graphs: no effect on the CPU
    if (m == kKernel && !cpu) {
      std::printf(
          "kernel time: skipped on %s (the kernel-time loop calls the CPU kernels directly); the "
          "nearest to kernel time is eagervm graph (one CUDA graph launch per step): the first "
          "ratio below is against it\n",
          dev.c_str());
      continue;
    }
    absl::StatusOr<std::unique_ptr<MlpTrainer>> tr = make(m);
    if (IsTorch(m) && absl::IsUnimplemented(tr.status())) {
      if (have_torch) std::printf("(libtorch: %s)\n", tr.status().ToString().c_str());
      have_torch = false;
      continue;
    }
    if (!tr.ok()) {
      leave_out(m, tr.status());
      continue;
    }
    t[m] = *std::move(tr);
  }

  // Correctness, from the same initial parameters.
  std::vector<float> curve[kModes];
  for (Mode m : kInProcess) {
    if (t[m] == nullptr) continue;
    if (absl::Status s = t[m]->Steps(f.check_steps, &curve[m]); !s.ok()) {
      leave_out(m, s);
      curve[m].clear();
    }
  }
  // The children: on the CPU their timed blocks alternate with the other
  // modes' below; on a device (a process start costs a CUDA context and
  // cuBLAS) one child per mode gives the curve and every timed block.
  std::vector<double> ms[kModes];
  for (Mode m : {kSync, kQueued}) {
    const bool timed = !cpu && !f.check_only;
    ChildResult r = RunMlpChild(ChildEnv(m), c, f, timed ? steps : 1, timed ? f.reps : 1);
    if (r.rc != 0) {
      leave_out(m, r.rc == 3 ? absl::UnimplementedError(r.unimplemented)
                             : absl::InternalError(
                                   absl::StrCat("the child process failed (exit ", r.rc, ")")));
      continue;
    }
    curve[m] = std::move(r.losses);
    if (timed) ms[m] = std::move(r.ms);
  }
  bool ok = true;
  for (Mode m : {kGraph, kGraphFlat, kSync, kQueued, kKernel, kGraphAutograd}) {
    const Mode ref = m == kGraphAutograd ? kEagerAutograd : kEager;
    if (curve[m].empty() || curve[ref].empty()) {
      if (!left_out[m].empty() || !left_out[ref].empty())
        std::printf("check: %s against %s: not run\n", ModeName(m, f.device), kModeNames[ref]);
      continue;
    }
    const bool same = curve[m] == curve[ref];
    std::printf("check: %s loss curve (%d steps) %s %s's\n", ModeName(m, f.device), f.check_steps,
                same ? "bitwise equal to" : "DIFFERS from", kModeNames[ref]);
    ok &= same;
  }
  // Autograd's step k is the hand-written trainers' step k + 1: the same
  // arithmetic in another order, so equal to float32 rounding.
  for (Mode m : {kEagerAutograd, kTorchAutograd}) {
    const Mode ref = m == kEagerAutograd ? kEager : kTorch;
    if (curve[m].empty() || curve[ref].empty()) continue;
    const double worst = WorstRelative(curve[m], curve[ref], 1);
    const bool close = worst <= 1e-4;
    std::printf("check: %s loss curve within %.1e (relative, bound 1e-4) of %s's: %s\n",
                ModeName(m, f.device), worst, ModeName(ref, f.device), close ? "yes" : "NO");
    ok &= close;
  }
  if (!curve[kEager].empty()) {
    std::printf("check: loss at step 0 %.5f, step %d %.5f\n", curve[kEager].front(),
                f.check_steps - 1, curve[kEager].back());
  }
  // The whole data set after as many steps: libtorch against eagervm,
  // hand-written against eager, autograd against eager autograd (one step
  // further).
  float ref_loss[kModes] = {}, ref_acc[kModes] = {};
  bool evaluated[kModes] = {};
  for (Mode m : {kEager, kEagerAutograd, kTorch, kTorchAutograd}) {
    if (t[m] == nullptr || curve[m].empty()) continue;
    absl::Status s = t[m]->Evaluate(&ref_loss[m], &ref_acc[m]);
    if (absl::IsUnimplemented(s)) {
      std::printf("check: %s: no evaluation on %s: %s\n", ModeName(m, f.device), dev.c_str(),
                  s.ToString().c_str());
      continue;
    }
    if (!s.ok()) {
      std::fprintf(stderr, "evaluate: %s\n", s.ToString().c_str());
      return 2;
    }
    evaluated[m] = true;
  }
  if (evaluated[kEager]) {
    std::printf("check: whole data set after %d steps: eagervm eager loss %.5f accuracy %.2f%%\n",
                f.check_steps, ref_loss[kEager], 100 * ref_acc[kEager]);
  }
  for (Mode m : {kTorch, kTorchAutograd}) {
    const Mode ref = m == kTorch ? kEager : kEagerAutograd;
    if (!evaluated[m] || !evaluated[ref]) continue;
    const bool close = WithinBand(ref_loss[m], ref_acc[m], ref_loss[ref], ref_acc[ref]);
    std::printf(
        "check: %s: loss %.5f accuracy %.2f%%, %s's %.5f %.2f%% (band: 1%% of the loss, 1 point "
        "of accuracy): %s\n",
        ModeName(m, f.device), ref_loss[m], 100 * ref_acc[m], kModeNames[ref], ref_loss[ref],
        100 * ref_acc[ref], close ? "within" : "OUTSIDE");
    ok &= close;
  }
  if (!cpu) {
    if (!curve[kEager].empty()) PrintCheckpoints(kModeNames[kEager], dev, curve[kEager], 0);
    if (!curve[kEagerAutograd].empty())  // its step k is the hand-written step k + 1
      PrintCheckpoints(kModeNames[kEagerAutograd], dev, curve[kEagerAutograd], 1);
    if (!curve[kEager].empty()) {
      ok &= CheckAgainstCpu(c, f, d, curve[kEager], evaluated[kEager], ref_loss[kEager],
                            ref_acc[kEager]);
    }
    if (!curve[kEagerAutograd].empty()) {
      ok &= CheckAgainstCpu(ca, f, d, curve[kEagerAutograd], evaluated[kEagerAutograd],
                            ref_loss[kEagerAutograd], ref_acc[kEagerAutograd]);
    }
  }
  bool any_left_out = false;
  for (const std::string& why : left_out) any_left_out |= !why.empty();
  auto summary = [&](const double* med) {
    if (f.summary.empty()) return;
    FILE* out = std::fopen(f.summary.c_str(), "a");
    if (out == nullptr) return;
    const std::string label =
        size + " (h" + std::to_string(c.hidden) + ", b" + std::to_string(c.batch) + ")";
    for (int i = 0; i < kModes; ++i) {
      const Mode m = static_cast<Mode>(i);
      if (med != nullptr && !ms[m].empty()) {
        std::fprintf(out, "mlp\t%s\t%s (%s)\t%.4f\t\n", label.c_str(), ModeName(m, f.device),
                     dev.c_str(), med[m]);
      } else if (!left_out[m].empty()) {
        std::fprintf(out, "mlp\t%s\t%s (%s)\t-\t%s\n", label.c_str(), ModeName(m, f.device),
                     dev.c_str(), left_out[m].substr(0, 160).c_str());
      }
    }
    std::fclose(out);
  };
  const int done = failed ? 2 : !ok ? 1 : any_left_out ? 3 : 0;
  if (t[kEager] == nullptr && t[kEagerAutograd] == nullptr && t[kGraph] == nullptr) {
    std::printf("no eagervm mode ran on %s: nothing to time\n", dev.c_str());
    summary(nullptr);
    return Worse(done, 3);
  }
  // A failed check ends the run on the CPU; on a device (a GPU machine is
  // borrowed for one run) the modes are timed all the same, and it exits 1.
  if (f.check_only || (!ok && cpu)) {
    summary(nullptr);
    return done;
  }
  if (!ok) std::printf("a check FAILED: timing all the same (exit 1)\n");

  // Timing, alternating.
  const std::string load_before = LoadAvg();
  for (int rep = 0; rep < f.reps; ++rep) {
    for (int i = 0; i < kModes; ++i) {
      const Mode m = static_cast<Mode>((i + rep) % kModes);
      if (m == kSync || m == kQueued) {
        if (!cpu || !left_out[m].empty()) continue;  // timed by its one child above
        const ChildResult r = RunMlpChild(ChildEnv(m), c, f, steps, 1);
        if (r.rc != 0) return 2;
        ms[m].push_back(r.ms[0]);
        continue;
      }
      if (t[m] == nullptr) continue;
      absl::Status s;
      ms[m].push_back(MsPerStep(*t[m], steps, &s));
      if (!s.ok()) {
        std::fprintf(stderr, "%s: %s\n", ModeName(m, f.device), s.ToString().c_str());
        return 2;
      }
    }
  }
  double med[kModes];
  for (int m = 0; m < kModes; ++m) med[m] = Median(ms[m]);
  // The first ratio: against the kernel-time loop on the CPU, against the
  // graph (CUDA graph replay) on a device.
  const Mode base = cpu ? kKernel : kGraph;
  std::printf("%d reps x %d steps per mode, alternating%s; load average %s (before), %s (after)\n",
              f.reps, steps, cpu ? "" : " (the children: their reps in one process)",
              load_before.c_str(), LoadAvg().c_str());
  std::printf("%-22s %9s %10s %10s %10s\n", "mode", "ms/step", cpu ? "vs kernel" : "vs graph",
              "vs torch", "vs sync");
  auto ratio = [&](int m, Mode ref) {
    if (ms[ref].empty())
      std::printf(" %10s", "-");
    else
      std::printf(" %9.2fx", med[m] / med[ref]);
  };
  for (int m = 0; m < kModes; ++m) {
    if (ms[m].empty()) continue;
    std::printf("%-22s %9.4f", ModeName(static_cast<Mode>(m), f.device), med[m]);
    ratio(m, base);
    if (have_torch)
      std::printf(" %9.2fx", med[m] / med[kTorch]);
    else
      std::printf(" %10s", "-");
    ratio(m, kSync);
    std::printf("\n");
  }
  if (!ms[kEagerAutograd].empty() && !ms[kEager].empty() && !ms[kGraphAutograd].empty() &&
      !ms[kGraph].empty()) {
    std::printf("autograd vs hand-written gradients: eagervm eager %.2fx, eagervm graph %.2fx",
                med[kEagerAutograd] / med[kEager], med[kGraphAutograd] / med[kGraph]);
    if (have_torch) {
      std::printf(", libtorch %.2fx; eagervm eager autograd vs libtorch autograd %.2fx",
                  med[kTorchAutograd] / med[kTorch], med[kEagerAutograd] / med[kTorchAutograd]);
    }
    std::printf("\n");
  }
  if (!cpu) {
    for (Mode m : {kGraph, kGraphFlat, kGraphAutograd}) {
      if (t[m] != nullptr) std::printf("%s: %s\n", ModeName(m, f.device), t[m]->Notes().c_str());
    }
  }
  summary(med);
  return done;
}

}  // namespace
// --count: one mode alone, for callgrind (instructions per step).
int Count(const MlpBenchFlags& f, const Digits& d) {
  MlpConfig c;
  const bool large = !f.sizes.empty() && f.sizes[0] == "large";
  c.hidden = large ? 512 : 128;
  c.batch = large ? 256 : 64;
  c.device = f.device;
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
  if (std::getenv("MLP_STATS") != nullptr) {  // the VM's counters and the graph's notes
    std::fprintf(stderr, "%s\n%s\n", VirtualMachine::Get().GetStats().ToString().c_str(),
                 (*t)->Notes().c_str());
  }
  return 0;
}

}  // namespace eagervm::models

int main(int argc, char** argv) {
  using namespace eagervm::models;
  MlpBenchFlags f;
  if (!Parse(argc, argv, &f)) return 2;
  if (!f.device.is_cpu() && eagervm::CudaDeviceCount() <= f.device.index()) {
    std::fprintf(stderr,
                 "mlp_bench: --device=%s: no such CUDA device here (CudaDeviceCount() is %d: no "
                 "GPU, no driver, or built without the CUDA backend); skipped\n",
                 f.device.ToString().c_str(), eagervm::CudaDeviceCount());
    return 77;
  }
  absl::StatusOr<Digits> d = LoadDigits(f.digits);
  if (!d.ok()) {
    std::fprintf(stderr, "%s\n", d.status().ToString().c_str());
    return absl::IsNotFound(d.status()) ? 77 : 2;  // 77: skipped (ctest SKIP_RETURN_CODE)
  }
  if (f.child) return MlpChild(f, *d);
  if (!f.count.empty()) return Count(f, *d);
  int rc = 0;
  for (const std::string& s : f.sizes) rc = Worse(rc, RunSize(s, f, *d));
  return rc;
}
