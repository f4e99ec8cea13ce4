// Trains y = x·W + b by full-batch gradient descent on synthetic data, using
// only the eagervm ops API, twice: eagerly, then with the training step
// captured once as a Graph and replayed. Every step is queued without
// waiting; the only sync points are the loss prints (one Item() each) and the
// final read of W, b. Prints both times per step and both fits (which must
// be bitwise equal). --device=cuda puts the data and the parameters on
// Device::Cuda(0): every op then runs there (the graph's replay as a CUDA
// graph).
//
//   linear_regression [--samples=4096] [--features=8] [--steps=100] [--lr=0.1]
//                     [--noise=0.1] [--seed=1] [--print-every=10] [--quiet]
//                     [--tolerance=0.02] [--fuse=1] [--device=cpu|cuda]
//
// Exits 0 iff every fitted parameter is within --tolerance of the true one
// (the test suite runs it in a short mode), 1 if not, 2 on a runtime error.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
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
  bool fuse = true;  // GraphOptions::fuse (0: to compare)
  eagervm::Device device = eagervm::Device::Cpu();
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
    if (std::strcmp(argv[i], "--quiet") == 0)
      o->quiet = true;
    else if (ParseFlag(argv[i], "--samples", &v))
      o->samples = std::stoll(v);
    else if (ParseFlag(argv[i], "--features", &v))
      o->features = std::stoll(v);
    else if (ParseFlag(argv[i], "--steps", &v))
      o->steps = std::stoi(v);
    else if (ParseFlag(argv[i], "--lr", &v))
      o->lr = std::stod(v);
    else if (ParseFlag(argv[i], "--noise", &v))
      o->noise = std::stod(v);
    else if (ParseFlag(argv[i], "--seed", &v))
      o->seed = std::stoull(v);
    else if (ParseFlag(argv[i], "--print-every", &v))
      o->print_every = std::stoi(v);
    else if (ParseFlag(argv[i], "--tolerance", &v))
      o->tolerance = std::stod(v);
    else if (ParseFlag(argv[i], "--fuse", &v))
      o->fuse = v != "0";
    else if (ParseFlag(argv[i], "--device", &v) && (v == "cpu" || v == "cuda"))
      o->device = v == "cpu" ? eagervm::Device::Cpu() : eagervm::Device::Cuda(0);
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
  if (!o.device.is_cpu() && eagervm::CudaDeviceCount() == 0) {
    std::fprintf(stderr,
                 "--device=cuda: no CUDA device here (no GPU, no driver, or built without "
                 "the CUDA backend)\n");
    return 2;
  }
  const eagervm::Device dev = o.device;
  const auto start = std::chrono::steady_clock::now();
  const int64_t n = o.samples, f = o.features;

  // Ground truth: W_i alternates in sign and grows; b = 0.75.
  std::vector<float> w_true(static_cast<size_t>(f));
  for (int64_t i = 0; i < f; ++i) w_true[i] = (i % 2 ? -0.5f : 0.5f) * static_cast<float>(i + 1);
  const float b_true = 0.75f;

  // Synthetic data, generated on the VM: x ~ N(0, 1), y = x·W + b + noise.
  Tensor x = eagervm::RandomNormal({n, f}, DType::kFloat32, dev, o.seed);
  Tensor noise = eagervm::RandomNormal({n, 1}, DType::kFloat32, dev, o.seed + 1);
  Tensor y =
      ops::MatMul(x, eagervm::FromVector<float>(w_true, {f, 1}, dev)) + b_true + noise * o.noise;
  Tensor xt = ops::Transpose(x);  // for the gradient of W, computed once

  if (!y.ok()) return Fail(y.status());  // a rejected call anywhere above ends up here
  if (!o.quiet) {
    std::printf("linear regression: %lld samples, %lld features, %d steps, lr %g, on %s\n",
                static_cast<long long>(n), static_cast<long long>(f), o.steps, o.lr,
                dev.ToString().c_str());
    std::printf("noise floor (noise^2) = %.6f\n", o.noise * o.noise);
  }
  // One training step, the same code eagerly and captured: the loss before
  // the update; W and b are updated in place.
  // loss = mean((x·W + b - y)^2); dloss/dW = 2/n x^T (pred - y); dloss/db = 2/n sum(pred - y).
  const double scale = -o.lr * 2.0 / static_cast<double>(n);
  auto step_fn = [scale](const Tensor& x, const Tensor& xt, const Tensor& y, const Tensor& w,
                         const Tensor& b) {
    Tensor err = ops::MatMul(x, w) + b - y;  // [n, 1], b broadcasts
    Tensor loss = ops::Mean(err * err);
    absl::Status s = ops::AddInplace(w, ops::MatMul(xt, err) * scale);
    if (s.ok()) s = ops::AddInplace(b, ops::Sum(err, 0, /*keepdim=*/true) * scale);
    return s.ok() ? loss : Tensor::Error(s);
  };

  struct Fit {
    std::vector<float> w, b;
    float loss = NAN;
    double us_per_step = 0;
  };
  // Trains from zero parameters; with `graph`, the step is captured once
  // (W and b are parameters, x, xt, y inputs) and replayed.
  auto train = [&](bool graph, Fit* fit) -> absl::Status {
    Tensor w = eagervm::Zeros({f, 1}, DType::kFloat32, dev);
    Tensor b = eagervm::Zeros({1, 1}, DType::kFloat32, dev);
    std::optional<eagervm::Graph> g;
    if (graph) {
      eagervm::GraphOptions options;
      options.fuse = o.fuse;
      absl::StatusOr<eagervm::Graph> c = eagervm::Graph::Capture(
          {x.meta(), xt.meta(), y.meta()},
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{step_fn(in[0], in[1], in[2], w, b)};
          },
          options);
      if (!c.ok()) return c.status();
      g = *std::move(c);
      const eagervm::GraphStats st = g->GetStats();
      if (!o.quiet) {
        std::printf(
            "graph: %lld ops captured, %lld nodes per run (%lld fused nodes holding %lld ops)\n",
            static_cast<long long>(st.captured_nodes), static_cast<long long>(st.nodes),
            static_cast<long long>(st.fused_nodes), static_cast<long long>(st.fused_ops));
      }
    }
    EAGERVM_RETURN_IF_ERROR(eagervm::Sync());
    const auto t0 = std::chrono::steady_clock::now();
    for (int step = 0; step < o.steps; ++step) {
      Tensor loss;
      if (g) {
        const Tensor in[] = {x, xt, y};
        absl::StatusOr<std::vector<Tensor>> out = g->Run(in);
        if (!out.ok()) return out.status();
        loss = (*out)[0];
      } else {
        loss = step_fn(x, xt, y, w, b);
      }
      if (step % o.print_every == 0 || step + 1 == o.steps) {
        absl::StatusOr<float> l = loss.Item<float>();  // the only sync point
        if (!l.ok()) return l.status();
        fit->loss = *l;
        if (!o.quiet)
          std::printf("  %s step %4d  loss %.6f\n", graph ? "graph" : "eager", step, *l);
      }
    }
    EAGERVM_RETURN_IF_ERROR(eagervm::Sync());
    fit->us_per_step =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        std::max(o.steps, 1);
    if (g && !dev.is_cpu() && !o.quiet) {
      const eagervm::GraphStats st = g->GetStats();
      std::printf(
          "graph on %s: %lld segment runs replayed as CUDA graphs, %lld recordings failed\n",
          dev.ToString().c_str(), static_cast<long long>(st.device_graph_runs),
          static_cast<long long>(st.device_graph_fallbacks));
    }
    EAGERVM_ASSIGN_OR_RETURN(fit->w, w.ToVector<float>());
    EAGERVM_ASSIGN_OR_RETURN(fit->b, b.ToVector<float>());
    return absl::OkStatus();
  };
  Fit eager_fit, graph_fit;
  if (absl::Status s = train(/*graph=*/false, &eager_fit); !s.ok()) return Fail(s);
  if (absl::Status s = train(/*graph=*/true, &graph_fit); !s.ok()) return Fail(s);
  const std::vector<float>& w_fit = graph_fit.w;
  const std::vector<float>& b_fit = graph_fit.b;
  const float loss = graph_fit.loss;
  const bool same = eager_fit.w == graph_fit.w && eager_fit.b == graph_fit.b;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  double worst = std::fabs(b_fit[0] - b_true);
  for (int64_t i = 0; i < f; ++i) worst = std::fmax(worst, std::fabs(w_fit[i] - w_true[i]));
  if (!o.quiet) {
    std::printf("\n%-6s %10s %10s %10s\n", "param", "true", "eager", "graph");
    for (int64_t i = 0; i < f; ++i) {
      std::printf("W[%lld]   %10.4f %10.4f %10.4f\n", static_cast<long long>(i), w_true[i],
                  eager_fit.w[i], w_fit[i]);
    }
    std::printf("b      %10.4f %10.4f %10.4f\n", b_true, eager_fit.b[0], b_fit[0]);
    std::printf("\ntime per step: eager %.1f us, graph %.1f us (%.2fx); fitted parameters %s\n",
                eager_fit.us_per_step, graph_fit.us_per_step,
                graph_fit.us_per_step > 0 ? eager_fit.us_per_step / graph_fit.us_per_step : 0.0,
                same ? "bitwise equal" : "DIFFER");
    std::printf("\nfinal loss %.6f (noise floor %.6f), max |fitted - true| = %.4f\n", loss,
                o.noise * o.noise, worst);
    std::printf("wall time %.3f s (both trainings)\n", seconds);
    std::printf("%s\n", eagervm::VirtualMachine::Get().GetStats().ToString().c_str());
  }
  if (!same) {
    std::fprintf(stderr, "FAILED: the graph's fitted parameters differ from eager's\n");
    return 1;
  }
  if (worst > o.tolerance) {
    std::fprintf(stderr, "FAILED: a fitted parameter is %.4f from the truth (tolerance %.4f)\n",
                 worst, o.tolerance);
    return 1;
  }
  if (o.quiet) {
    std::printf(
        "ok: max |fitted - true| = %.4f, loss %.6f; per step eager %.1f us, graph %.1f us\n", worst,
        loss, eager_fit.us_per_step, graph_fit.us_per_step);
  }
  return 0;
}
