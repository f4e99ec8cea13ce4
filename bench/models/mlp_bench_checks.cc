// mlp_bench's correctness helpers: curve comparisons, and the device's
// training against the CPU's.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/mlp_bench.h"

namespace eagervm::models {

double WorstRelative(const std::vector<float>& a, const std::vector<float>& b, size_t shift) {
  double worst = 0;
  for (size_t k = 0; k + shift < b.size() && k < a.size(); ++k) {
    worst =
        std::max(worst, std::fabs(double{a[k]} - b[k + shift]) / std::fabs(double{b[k + shift]}));
  }
  return worst;
}

void PrintCheckpoints(const char* name, const std::string& dev, const std::vector<float>& curve,
                      int first) {
  const size_t every = std::max<size_t>(1, curve.size() / 10);
  std::printf("loss curve (%s on %s):", name, dev.c_str());
  for (size_t k = 0; k < curve.size(); k += every)
    std::printf(" %zu:%.5f", k + static_cast<size_t>(first), curve[k]);
  if ((curve.size() - 1) % every != 0)
    std::printf(" %zu:%.5f", curve.size() - 1 + static_cast<size_t>(first), curve.back());
  std::printf("\n");
}

bool WithinBand(float loss, float acc, float ref_loss, float ref_acc) {
  return std::fabs(loss - ref_loss) <= 0.01f * std::fabs(loss) && std::fabs(acc - ref_acc) <= 0.01f;
}

// The curves must be within 1e-3 (relative, every step): cuBLAS and the
// CPU's BLAS sum in other orders, and training carries the difference along.
// The whole-data-set loss and accuracy must be within the libtorch band.
bool CheckAgainstCpu(const MlpConfig& c, const MlpBenchFlags& f, const Digits& d,
                     const std::vector<float>& curve, bool evaluated, float loss, float accuracy) {
  const std::string dev = f.device.ToString();
  const char* name = c.autograd ? "eagervm eager autograd" : "eagervm eager";
  MlpConfig cc = c;
  cc.device = Device::Cpu();
  absl::StatusOr<std::unique_ptr<MlpTrainer>> t = MakeEagervmTrainer(cc, d, /*graph=*/false);
  std::vector<float> cpu_curve;
  float cpu_loss = 0, cpu_acc = 0;
  absl::Status s = t.status();
  if (s.ok()) s = (*t)->Steps(f.check_steps, &cpu_curve);
  if (s.ok() && evaluated) s = (*t)->Evaluate(&cpu_loss, &cpu_acc);
  if (!s.ok()) {
    std::fprintf(stderr, "%s on the CPU: %s\n", name, s.ToString().c_str());
    return false;
  }
  const double worst = WorstRelative(curve, cpu_curve, 0);
  bool ok = worst <= 1e-3;
  std::printf("check: %s loss curve on %s within %.1e (relative, bound 1e-3) of the CPU's: %s\n",
              name, dev.c_str(), worst, ok ? "yes" : "NO");
  if (!evaluated) return ok;
  const bool in_band = WithinBand(loss, accuracy, cpu_loss, cpu_acc);
  std::printf(
      "check: %s on %s: whole data set loss %.5f accuracy %.2f%%, on the CPU %.5f %.2f%% "
      "(band: 1%% of the loss, 1 point of accuracy): %s\n",
      name, dev.c_str(), loss, 100 * accuracy, cpu_loss, 100 * cpu_acc,
      in_band ? "within" : "OUTSIDE");
  return ok && in_band;
}

}  // namespace eagervm::models
