// The optimizers' Step() fused (one instruction per parameter) against the
// unfused in-place ops, on 12 parameters of a small transformer's shapes
// (200k float32 elements). Prints ms per step, alternating the two paths
// each rep (median), or, with --mode=fused|unfused, runs only that path for
// --steps steps (for callgrind: scripts/profile_optim_step.sh).
//
//   optim_bench [--opt=adam|sgd] [--mode=both|fused|unfused] [--steps=50] [--reps=7]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

std::vector<Tensor> MakeParams() {
  std::vector<Tensor> params;
  for (int layer = 0; layer < 2; ++layer) {
    for (Shape s :
         {Shape{128, 128}, Shape{128}, Shape{128, 512}, Shape{512}, Shape{512, 128}, Shape{128}}) {
      params.push_back(Full(s, 0.5, DType::kFloat32).RequiresGrad());
    }
  }
  Tensor loss;
  for (const Tensor& p : params) {
    Tensor term = ops::Sum(p * p);
    loss = loss.defined() ? loss + term : term;
  }
  if (absl::Status s = autograd::Backward(loss); !s.ok()) {
    std::fprintf(stderr, "Backward: %s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
  return params;
}

std::function<absl::Status()> MakeStep(const std::string& opt, std::vector<Tensor> params,
                                       bool fused) {
  if (opt == "sgd") {
    auto sgd = std::make_shared<optim::Sgd>(std::move(params), 0.01, 0.9, 1e-4);
    sgd->set_fused(fused);
    return [sgd] { return sgd->Step(); };
  }
  auto adam = std::make_shared<optim::Adam>(std::move(params), 1e-3);
  adam->set_fused(fused);
  return [adam] { return adam->Step(); };
}

// ms per step over `steps` steps, waiting for the last.
double Run(const std::function<absl::Status()>& step, int steps) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    if (absl::Status s = step(); !s.ok()) {
      std::fprintf(stderr, "Step: %s\n", std::string(s.message()).c_str());
      std::exit(1);
    }
  }
  if (absl::Status s = Sync(); !s.ok()) std::exit(1);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
         steps;
}

std::string Flag(int argc, char** argv, const char* name, const char* fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
  return fallback;
}

int Main(int argc, char** argv) {
  const std::string opt = Flag(argc, argv, "opt", "adam");
  const std::string mode = Flag(argc, argv, "mode", "both");
  const int steps = std::atoi(Flag(argc, argv, "steps", "50").c_str());
  const int reps = std::atoi(Flag(argc, argv, "reps", "7").c_str());
  if (mode != "both") {
    (void)Run(MakeStep(opt, MakeParams(), mode == "fused"), steps);
    return 0;
  }
  auto fused = MakeStep(opt, MakeParams(), true), unfused = MakeStep(opt, MakeParams(), false);
  std::vector<double> f, u;
  for (int r = 0; r < reps; ++r) {
    f.push_back(Run(fused, steps));
    u.push_back(Run(unfused, steps));
  }
  std::sort(f.begin(), f.end());
  std::sort(u.begin(), u.end());
  const double fm = f[f.size() / 2], um = u[u.size() / 2];
  std::printf("%s: fused %.3f ms/step, unfused %.3f ms/step, unfused/fused %.2fx\n", opt.c_str(),
              fm, um, um / fm);
  return 0;
}

}  // namespace
}  // namespace eagervm

int main(int argc, char** argv) { return eagervm::Main(argc, argv); }
