// mlp_bench's pieces shared by its files: the flags, the child process of the
// eager sync and queued modes (mlp_bench_child.cc) and the device-against-CPU
// checks (mlp_bench_checks.cc). Single-threaded, the bench's main thread.
#ifndef EAGERVM_BENCH_MODELS_MLP_BENCH_H_
#define EAGERVM_BENCH_MODELS_MLP_BENCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "eagervm/device.h"
#include "models/digits.h"
#include "models/mlp.h"

namespace eagervm::models {

struct MlpBenchFlags {
  std::vector<std::string> sizes = {"small", "large"};
  int reps = 7;
  int steps = 0;
  int check_steps = 100;
  bool check_only = false;
  // --count=eager|autograd|graph|kernel: only that mode (hand-written eager, or eager
  // autograd), in this process, --steps steps after 10 warm-up steps, no
  // timing or checks: for instruction counts under callgrind.
  std::string count;
  Device device = Device::Cpu();
  std::string digits = kDigitsPath;
  std::string summary;  // --summary=FILE: one line per mode appended
  // Internal: the child process of the eager sync and queued modes.
  bool child = false;
  int64_t hidden = 0, batch = 0;
};

// Runs 10 warm-up steps, then times `steps` (ms per step); a failure is
// stored in `status`.
double MsPerStep(MlpTrainer& t, int steps, absl::Status* status);

// The child process (--child): trains f.check_steps steps and prints the
// loss curve, then f.reps timed blocks of f.steps steps. Returns its exit
// code: 3 (after printing "unimplemented <status>") when the device lacks a
// kernel of the step.
int MlpChild(const MlpBenchFlags& f, const Digits& d);

// What a child reported.
struct ChildResult {
  int rc = 2;                 // its exit code (0 ok, 3 unimplemented)
  std::string unimplemented;  // its status when rc is 3
  std::vector<float> losses;
  std::vector<double> ms;  // one per timed block
};
// Runs this executable as a child with the environment `env` (a VM mode,
// e.g. "EAGERVM_SYNCHRONOUS=1"), `reps` timed blocks of `steps` steps.
// Blocks until it exits.
ChildResult RunMlpChild(const char* env, const MlpConfig& c, const MlpBenchFlags& f, int steps,
                        int reps);

// The largest relative difference of a[k] from b[k + shift], over the steps
// both have.
double WorstRelative(const std::vector<float>& a, const std::vector<float>& b, size_t shift);
// Loss within 1% (relative) and accuracy within 1 point of the reference's.
bool WithinBand(float loss, float acc, float ref_loss, float ref_acc);
// Prints every tenth loss of `curve` (its first is step `first`), as the
// PyTorch peer (peers/mlp_torch_cuda.py) prints its own.
void PrintCheckpoints(const char* name, const std::string& dev, const std::vector<float>& curve,
                      int first);
// The device against the CPU: the same trainer (eagervm eager, hand-written
// or with `autograd`) trained on the CPU from the same parameters. `curve` is
// the device's; `evaluated` says whether `loss` and `accuracy` (its whole-
// data-set evaluation) are known. Prints the checks; false if one failed.
bool CheckAgainstCpu(const MlpConfig& c, const MlpBenchFlags& f, const Digits& d,
                     const std::vector<float>& curve, bool evaluated, float loss, float accuracy);

}  // namespace eagervm::models

#endif  // EAGERVM_BENCH_MODELS_MLP_BENCH_H_
