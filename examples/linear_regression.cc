// Trains y = x·W + b by full-batch gradient descent on synthetic data, using
// only the eagervm ops API. Every step is queued without waiting; the only
// sync points are the loss prints (one Item() each) and the final read of W, b.
//
//   linear_regression [--samples=4096] [--features=8] [--steps=100] [--lr=0.1]
//                     [--noise=0.1] [--seed=1] [--print-every=10] [--quiet]
//                     [--tolerance=0.02]
//
// Exits 0 iff every fitted parameter is within --tolerance of the true one
// (the test suite runs it in a short mode), 1 if not, 2 on a runtime error.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "eagervm/eagervm.h"

namespace {

using eagervm::DType;
using eagervm::Tensor;
namespace ops = eagervm::ops;

struct Options {
  int64_t samples = 4096;
  int64_t features = 8;
  int steps = 100;
  double lr = 0.1;
  double noise = 0.1;
  uint64_t seed = 1;
  int print_every = 10;
  bool quiet = false;
  double tolerance = 0.02;
};

bool ParseFlag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

bool ParseOptions(int argc, char** argv, Options* o) try {
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (std::strcmp(argv[i], "--quiet") == 0) o->quiet = true;
    else if (ParseFlag(argv[i], "--samples", &v)) o->samples = std::stoll(v);
    else if (ParseFlag(argv[i], "--features", &v)) o->features = std::stoll(v);
    else if (ParseFlag(argv[i], "--steps", &v)) o->steps = std::stoi(v);
    else if (ParseFlag(argv[i], "--lr", &v)) o->lr = std::stod(v);
    else if (ParseFlag(argv[i], "--noise", &v)) o->noise = std::stod(v);
    else if (ParseFlag(argv[i], "--seed", &v)) o->seed = std::stoull(v);
    else if (ParseFlag(argv[i], "--print-every", &v)) o->print_every = std::stoi(v);
    else if (ParseFlag(argv[i], "--tolerance", &v)) o->tolerance = std::stod(v);
    else {
      std::fprintf(stderr, "unknown flag %s (see the comment at the top of linear_regression.cc)\n",
                   argv[i]);
      return false;
    }
  }
  return o->samples > 0 && o->features > 0 && o->steps >= 0 && o->print_every > 0;
} catch (const std::exception& e) {  // std::stoi and friends on a malformed number
  std::fprintf(stderr, "bad flag value: %s\n", e.what());
  return false;
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 2;
  const auto start = std::chrono::steady_clock::now();
  const int64_t n = o.samples, f = o.features;

  // Ground truth: W_i alternates in sign and grows; b = 0.75.
  std::vector<float> w_true(static_cast<size_t>(f));
  for (int64_t i = 0; i < f; ++i) w_true[i] = (i % 2 ? -0.5f : 0.5f) * static_cast<float>(i + 1);
  const float b_true = 0.75f;

  // Synthetic data, generated on the VM: x ~ N(0, 1), y = x·W + b + noise.
  Tensor x = eagervm::RandomNormal({n, f}, DType::kFloat32, eagervm::Device::Cpu(), o.seed);
  Tensor noise = eagervm::RandomNormal({n, 1}, DType::kFloat32, eagervm::Device::Cpu(), o.seed + 1);
  Tensor y = ops::MatMul(x, eagervm::FromVector<float>(w_true, {f, 1})) + b_true + noise * o.noise;
  Tensor xt = ops::Transpose(x);  // for the gradient of W, computed once

  // Parameters, updated in place.
  Tensor w = eagervm::Zeros({f, 1}, DType::kFloat32);
  Tensor b = eagervm::Zeros({1, 1}, DType::kFloat32);
  if (!y.ok()) return Fail(y.status());  // a rejected call anywhere above ends up here

  if (!o.quiet) {
    std::printf("linear regression: %lld samples, %lld features, %d steps, lr %g\n",
                static_cast<long long>(n), static_cast<long long>(f), o.steps, o.lr);
    std::printf("noise floor (noise^2) = %.6f\n", o.noise * o.noise);
  }
  // loss = mean((x·W + b - y)^2); dloss/dW = 2/n x^T (pred - y); dloss/db = 2/n sum(pred - y).
  const double scale = -o.lr * 2.0 / static_cast<double>(n);
  float loss = NAN;
  for (int step = 0; step <= o.steps; ++step) {
    Tensor err = ops::MatMul(x, w) + b - y;  // [n, 1], b broadcasts
    if (step % o.print_every == 0 || step == o.steps) {
      absl::StatusOr<float> l = ops::Mean(err * err).Item<float>();  // the only sync point
      if (!l.ok()) return Fail(l.status());
      loss = *l;
      if (!o.quiet) std::printf("step %4d  loss %.6f\n", step, loss);
    }
    if (step == o.steps) break;
    absl::Status s = ops::AddInplace(w, ops::MatMul(xt, err) * scale);
    if (s.ok()) s = ops::AddInplace(b, ops::Sum(err, 0, /*keepdim=*/true) * scale);
    if (!s.ok()) return Fail(s);
  }

  absl::StatusOr<std::vector<float>> w_fit = w.ToVector<float>();
  absl::StatusOr<std::vector<float>> b_fit = b.ToVector<float>();
  if (!w_fit.ok()) return Fail(w_fit.status());
  if (!b_fit.ok()) return Fail(b_fit.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  double worst = std::fabs((*b_fit)[0] - b_true);
  for (int64_t i = 0; i < f; ++i) worst = std::fmax(worst, std::fabs((*w_fit)[i] - w_true[i]));
  if (!o.quiet) {
    std::printf("\n%-6s %10s %10s\n", "param", "true", "fitted");
    for (int64_t i = 0; i < f; ++i) {
      std::printf("W[%lld]   %10.4f %10.4f\n", static_cast<long long>(i), w_true[i], (*w_fit)[i]);
    }
    std::printf("b      %10.4f %10.4f\n", b_true, (*b_fit)[0]);
    std::printf("\nfinal loss %.6f (noise floor %.6f), max |fitted - true| = %.4f\n", loss,
                o.noise * o.noise, worst);
    std::printf("wall time %.3f s (%.1f us per step)\n", seconds,
                o.steps > 0 ? seconds * 1e6 / o.steps : 0.0);
    std::printf("%s\n", eagervm::VirtualMachine::Get().GetStats().ToString().c_str());
  }
  if (worst > o.tolerance) {
    std::fprintf(stderr, "FAILED: a fitted parameter is %.4f from the truth (tolerance %.4f)\n",
                 worst, o.tolerance);
    return 1;
  }
  if (o.quiet) std::printf("ok: max |fitted - true| = %.4f, loss %.6f, %.3f s\n", worst, loss, seconds);
  return 0;
}
