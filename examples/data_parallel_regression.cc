// examples/linear_regression.cc split across ranks: y = x·W + b fitted by
// full-batch gradient descent, each rank holding its shard of the samples
// (rows [r·n/N, (r+1)·n/N)), the gradients all-reduced every step. Every
// rank generates the same synthetic data from the seed and also fits it
// alone, as one process would; the two fits must agree (only the order of
// the float additions differs).
//
//   mpirun -np 2 data_parallel_regression [--samples=4096] [--features=8]
//       [--steps=100] [--lr=0.1] [--seed=1] [--quiet] [--tolerance=1e-4]
//
// Exits 0 iff the data-parallel fit equals the single-process one within
// --tolerance on every rank, 1 if not, 2 on an error (e.g. not under mpirun).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  uint64_t seed = 1;
  bool quiet = false;
  double tolerance = 1e-4;
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    auto value = [a](const char* name) -> const char* {
      const size_t n = std::strlen(name);
      return std::strncmp(a, name, n) == 0 && a[n] == '=' ? a + n + 1 : nullptr;
    };
    if (std::strcmp(a, "--quiet") == 0) {
      o->quiet = true;
    } else if (const char* v = value("--samples")) {
      o->samples = std::atoll(v);
    } else if (const char* v = value("--features")) {
      o->features = std::atoll(v);
    } else if (const char* v = value("--steps")) {
      o->steps = std::atoi(v);
    } else if (const char* v = value("--lr")) {
      o->lr = std::atof(v);
    } else if (const char* v = value("--seed")) {
      o->seed = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("--tolerance")) {
      o->tolerance = std::atof(v);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", a);
      return false;
    }
  }
  return o->samples > 0 && o->features > 0 && o->steps >= 0;
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "rank %d: error: %s\n", eagervm::Rank(), s.ToString().c_str());
  return 2;
}

struct Fit {
  std::vector<float> w, b;
  float loss = NAN;
};

// Trains from zero parameters on rows [begin, end) of x, y (n rows in all).
// With `all_reduce`, each rank's partial gradient sums (and the loss) are
// all-reduced, so every rank applies the gradient of the whole data set.
absl::Status Train(const Options& o, const Tensor& x, const Tensor& y, int64_t begin, int64_t end,
                   bool all_reduce, Fit* fit) {
  const int64_t f = o.features;
  Tensor xs = x.Slice(begin, end), ys = y.Slice(begin, end);
  Tensor xt = ops::Transpose(xs);
  Tensor w = eagervm::Zeros({f, 1}, DType::kFloat32);
  Tensor b = eagervm::Zeros({1, 1}, DType::kFloat32);
  const double scale = -o.lr * 2.0 / static_cast<double>(o.samples);
  Tensor sq_sum;
  for (int step = 0; step < o.steps; ++step) {
    Tensor err = ops::MatMul(xs, w) + b - ys;            // [shard, 1]
    Tensor grad_w = ops::MatMul(xt, err);                // this shard's sum over samples
    Tensor grad_b = ops::Sum(err, 0, /*keepdim=*/true);  // [1, 1]
    if (all_reduce) {
      EAGERVM_RETURN_IF_ERROR(ops::AllReduceInplace(grad_w));
      EAGERVM_RETURN_IF_ERROR(ops::AllReduceInplace(grad_b));
    }
    if (step + 1 == o.steps) sq_sum = ops::Sum(err * err);
    EAGERVM_RETURN_IF_ERROR(ops::AddInplace(w, grad_w * scale));
    EAGERVM_RETURN_IF_ERROR(ops::AddInplace(b, grad_b * scale));
  }
  if (sq_sum.defined()) {
    if (all_reduce) sq_sum = ops::AllReduce(sq_sum);
    EAGERVM_ASSIGN_OR_RETURN(float s, sq_sum.Item<float>());
    fit->loss = s / static_cast<float>(o.samples);
  }
  EAGERVM_ASSIGN_OR_RETURN(fit->w, w.ToVector<float>());
  EAGERVM_ASSIGN_OR_RETURN(fit->b, b.ToVector<float>());
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, &o)) return 2;
  if (absl::Status s = eagervm::InitDistributed(); !s.ok()) return Fail(s);
  const int rank = eagervm::Rank(), world = eagervm::WorldSize();
  const int64_t n = o.samples, f = o.features;

  // The same data on every rank (same seeds): x ~ N(0, 1), y = x·W + b + noise.
  std::vector<float> w_true(static_cast<size_t>(f));
  for (int64_t i = 0; i < f; ++i) w_true[i] = (i % 2 ? -0.5f : 0.5f) * static_cast<float>(i + 1);
  Tensor x = eagervm::RandomNormal({n, f}, DType::kFloat32, eagervm::Device::Cpu(), o.seed);
  Tensor noise = eagervm::RandomNormal({n, 1}, DType::kFloat32, eagervm::Device::Cpu(), o.seed + 1);
  Tensor y = ops::MatMul(x, eagervm::FromVector<float>(w_true, {f, 1})) + 0.75f + noise * 0.1;
  if (!y.ok()) return Fail(y.status());

  Fit parallel, single;
  const int64_t begin = rank * n / world, end = (rank + 1) * n / world;
  if (absl::Status s = Train(o, x, y, begin, end, /*all_reduce=*/true, &parallel); !s.ok()) {
    return Fail(s);
  }
  if (absl::Status s = Train(o, x, y, 0, n, /*all_reduce=*/false, &single); !s.ok()) {
    return Fail(s);
  }
  double worst = std::fabs(parallel.b[0] - single.b[0]);
  for (int64_t i = 0; i < f; ++i) worst = std::fmax(worst, std::fabs(parallel.w[i] - single.w[i]));
  const bool same = worst <= o.tolerance;
  if (rank == 0 && !o.quiet) {
    std::printf("data-parallel linear regression: %lld samples over %d ranks, %d steps\n",
                static_cast<long long>(n), world, o.steps);
    std::printf("%-6s %12s %12s\n", "param", "one process", "data-parallel");
    for (int64_t i = 0; i < f; ++i) {
      std::printf("W[%lld]   %12.4f %12.4f\n", static_cast<long long>(i), single.w[i],
                  parallel.w[i]);
    }
    std::printf("b      %12.4f %12.4f\n", single.b[0], parallel.b[0]);
    std::printf("final loss %.6f vs %.6f; max |difference| = %.2g\n", single.loss, parallel.loss,
                worst);
  }
  if (!same) {
    std::fprintf(stderr, "rank %d: FAILED: the fits differ by %.3g (tolerance %.3g)\n", rank, worst,
                 o.tolerance);
    return 1;
  }
  if (o.quiet && rank == 0) {
    std::printf("ok: %d ranks fit the single-process parameters within %.2g (loss %.6f)\n", world,
                worst, parallel.loss);
  }
  return 0;
}
