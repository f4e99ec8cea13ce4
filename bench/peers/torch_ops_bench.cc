// eagervm's model ops beside libtorch's (Debian libtorch-dev), both in this
// process, on the same inputs: MatMul with a transposed operand against the
// contiguous case, Softmax, IndexSelect (an embedding lookup), and strided
// views (T(), a column Slice, Expand) passed to an elementwise Add against the
// contiguous Add. libtorch runs with one intra-op thread
// (at::set_num_threads(1)); eagervm's CPU kernels are single-threaded and its
// BLAS runs on one thread (both use the same OpenBLAS). Every eagervm
// measurement waits for its result (Wait) inside the timed loop, so the
// queued work is counted. Each benchmark checks its result against
// libtorch's once, outside the timing.
//
// Run: build/rel/bench/peers/torch_ops_bench --benchmark_repetitions=3
//      --benchmark_enable_random_interleaving=true   (medians in the table)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/bench_util.h"
#include "eagervm/eagervm.h"

namespace eagervm::bench {
namespace {

void Check(benchmark::State& state, const absl::Status& s) {
  if (!s.ok()) state.SkipWithError(s.ToString().c_str());
}

// A [rows, cols] float32 tensor of N(0, 1) samples in eagervm, and the same
// values as a libtorch tensor (its own copy).
struct Pair {
  Tensor evm;
  at::Tensor torch;
};

Pair RandomPair(int64_t rows, int64_t cols, uint64_t seed) {
  Pair p;
  p.evm = RandomNormal({rows, cols}, DType::kFloat32, Device::Cpu(), seed);
  p.torch = at::empty({rows, cols}, at::kFloat);
  absl::Status s = p.evm.CopyToHost(p.torch.data_ptr<float>(), p.torch.nbytes());
  if (!s.ok()) p.evm = Tensor::Error(s);
  return p;
}

// Fails the benchmark unless `got` (eagervm) matches `want` (libtorch) to
// float32 rounding: a benchmark of wrong results measures nothing.
void ExpectSame(benchmark::State& state, const Tensor& got, const at::Tensor& want, double tol) {
  absl::StatusOr<std::vector<float>> v = got.ToVector<float>();
  if (!v.ok()) return Check(state, v.status());
  const at::Tensor w = want.contiguous();
  if (static_cast<int64_t>(v->size()) != w.numel()) return state.SkipWithError("wrong size");
  const float* p = w.data_ptr<float>();
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(std::fabs((*v)[i] - p[i]) <= tol * (1.0 + std::fabs(p[i])))) {
      return state.SkipWithError(("wrong value at " + std::to_string(i)).c_str());
    }
  }
}

// Times `run` (returns the eagervm result, waited for inside the timing).
template <typename F>
void TimeEvm(benchmark::State& state, F run) {
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    Tensor out = run();
    Check(state, out.Wait());
    timer.Add(WallNanos() - t0, 1);
  }
  timer.Report(state);
}

template <typename F>
void TimeTorch(benchmark::State& state, F run) {
  c10::InferenceMode guard;
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    at::Tensor out = run();
    benchmark::DoNotOptimize(out.data_ptr());
    timer.Add(WallNanos() - t0, 1);
  }
  timer.Report(state);
}

// --- MatMul: a @ b with b given as [n,k] and transposed ---------------------
// range(0): size; range(1): 0 = contiguous a @ b, 1 = MatMul(a, bt, false,
// true) (the BLAS flag), 2 = MatMul(a, bt.T()) (the transposed view).

void BM_EvmMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int mode = static_cast<int>(state.range(1));
  Pair a = RandomPair(n, n, 1), b = RandomPair(n, n, 2), bt = RandomPair(n, n, 3);
  auto run = [&] {
    if (mode == 0) return ops::MatMul(a.evm, b.evm);
    if (mode == 1) return ops::MatMul(a.evm, bt.evm, false, true);
    return ops::MatMul(a.evm, bt.evm.T());
  };
  ExpectSame(state, run(), mode == 0 ? at::mm(a.torch, b.torch) : at::mm(a.torch, bt.torch.t()),
             1e-3);
  TimeEvm(state, run);
}
BENCHMARK(BM_EvmMatMul)->ArgsProduct({{512, 1024}, {0, 1, 2}})->UseRealTime();

// range(1): 0 = at::mm(a, b), 1 = at::mm(a, bt.t()).
void BM_TorchMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool t = state.range(1) != 0;
  at::Tensor a = at::randn({n, n}), b = at::randn({n, n});
  TimeTorch(state, [&] { return at::mm(a, t ? b.t() : b); });
}
BENCHMARK(BM_TorchMatMul)->ArgsProduct({{512, 1024}, {0, 1}})->UseRealTime();

// --- Skinny products: a classifier's output layer ---------------------------
// range(0): 0 forward h[256,512] @ w[512,10]; 1 weight gradient
// h^T @ g[256,10]; 2 input gradient g @ w^T (eagervm: skinny_gemm.h).
void BM_EvmSkinnyMatMul(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  Pair h = RandomPair(256, 512, 21), w = RandomPair(512, 10, 22), g = RandomPair(256, 10, 23);
  auto run = [&] {
    if (mode == 0) return ops::MatMul(h.evm, w.evm);
    if (mode == 1) return ops::MatMul(h.evm, g.evm, true, false);
    return ops::MatMul(g.evm, w.evm, false, true);
  };
  at::Tensor ref = mode == 0   ? at::mm(h.torch, w.torch)
                   : mode == 1 ? at::mm(h.torch.t(), g.torch)
                               : at::mm(g.torch, w.torch.t());
  ExpectSame(state, run(), ref, 1e-3);
  TimeEvm(state, run);
}
BENCHMARK(BM_EvmSkinnyMatMul)->DenseRange(0, 2)->UseRealTime();

void BM_TorchSkinnyMatMul(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  at::Tensor h = at::randn({256, 512}), w = at::randn({512, 10}), g = at::randn({256, 10});
  TimeTorch(state, [&] {
    return mode == 0 ? at::mm(h, w) : mode == 1 ? at::mm(h.t(), g) : at::mm(g, w.t());
  });
}
BENCHMARK(BM_TorchSkinnyMatMul)->DenseRange(0, 2)->UseRealTime();

// --- Softmax over [1024, 1024] along the last axis --------------------------
constexpr int64_t kSoftmaxN = 1024;

void BM_EvmSoftmax(benchmark::State& state) {
  Pair x = RandomPair(kSoftmaxN, kSoftmaxN, 4);
  ExpectSame(state, ops::Softmax(x.evm, -1), at::softmax(x.torch, -1), 1e-5);
  TimeEvm(state, [&] { return ops::Softmax(x.evm, -1); });
}
BENCHMARK(BM_EvmSoftmax)->UseRealTime();

void BM_TorchSoftmax(benchmark::State& state) {
  at::Tensor x = at::randn({kSoftmaxN, kSoftmaxN});
  TimeTorch(state, [&] { return at::softmax(x, -1); });
}
BENCHMARK(BM_TorchSoftmax)->UseRealTime();

// --- IndexSelect: 64 rows of a [50000, 256] table ---------------------------
constexpr int64_t kTableRows = 50'000, kTableCols = 256, kLookups = 64;

std::vector<int64_t> LookupIds() {
  std::vector<int64_t> ids(kLookups);
  for (int64_t i = 0; i < kLookups; ++i) ids[i] = (i * 7919 + 13) % kTableRows;
  return ids;
}

void BM_EvmIndexSelect(benchmark::State& state) {
  Pair table = RandomPair(kTableRows, kTableCols, 5);
  const std::vector<int64_t> ids = LookupIds();
  Tensor idx = FromVector<int64_t>(ids, {kLookups});
  ExpectSame(state, ops::IndexSelect(table.evm, 0, idx),
             at::index_select(table.torch, 0, at::tensor(ids, at::kLong)), 0);
  TimeEvm(state, [&] { return ops::IndexSelect(table.evm, 0, idx); });
}
BENCHMARK(BM_EvmIndexSelect)->UseRealTime();

void BM_TorchIndexSelect(benchmark::State& state) {
  at::Tensor table = at::randn({kTableRows, kTableCols});
  at::Tensor idx = at::tensor(LookupIds(), at::kLong);
  TimeTorch(state, [&] { return at::index_select(table, 0, idx); });
}
BENCHMARK(BM_TorchIndexSelect)->UseRealTime();

// --- The transformer's elementwise and row ops at its shapes ---------------
// (bench/models/transformer.h: 256 tokens, d 128, MLP width 512, 16 heads x
// batches of 64 x 64 attention scores). range(0): 0 = Gelu [256, 512],
// 1 = LayerNorm [256, 128], 2 = Softmax [16, 64, 64] over the last axis.

Tensor EvmModelOp(int op, const Tensor& x, const Tensor& w, const Tensor& b) {
  if (op == 0) return ops::Gelu(x);
  if (op == 1) return ops::LayerNorm(x, w, b, 1e-5);
  return ops::Softmax(x, -1);
}
at::Tensor TorchModelOp(int op, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  if (op == 0) return at::gelu(x);
  if (op == 1) return at::layer_norm(x, {x.size(-1)}, w, b, 1e-5);
  return at::softmax(x, -1);
}
std::vector<int64_t> ModelOpShape(int op) {
  if (op == 0) return {256, 512};
  if (op == 1) return {256, 128};
  return {16, 64, 64};
}

void BM_EvmModelOp(benchmark::State& state) {
  const int op = static_cast<int>(state.range(0));
  const std::vector<int64_t> shape = ModelOpShape(op);
  const int64_t d = shape.back();
  Pair x = RandomPair(shape[0], d * (op == 2 ? 64 : 1), 9), w = RandomPair(1, d, 10),
       b = RandomPair(1, d, 11);
  const Tensor xe = x.evm.Reshape(op == 2 ? Shape{16, 64, 64} : Shape{shape[0], d});
  const Tensor we = w.evm.Reshape({d}), be = b.evm.Reshape({d});
  ExpectSame(state, EvmModelOp(op, xe, we, be),
             TorchModelOp(op, x.torch.reshape(shape), w.torch.reshape({d}), b.torch.reshape({d})),
             1e-5);
  TimeEvm(state, [&] { return EvmModelOp(op, xe, we, be); });
}
BENCHMARK(BM_EvmModelOp)->DenseRange(0, 2)->UseRealTime();

void BM_TorchModelOp(benchmark::State& state) {
  const int op = static_cast<int>(state.range(0));
  const std::vector<int64_t> shape = ModelOpShape(op);
  at::Tensor x = at::randn(shape), w = at::randn({shape.back()}), b = at::randn({shape.back()});
  TimeTorch(state, [&] { return TorchModelOp(op, x, w, b); });
}
BENCHMARK(BM_TorchModelOp)->DenseRange(0, 2)->UseRealTime();

// --- A strided view into Add, [2048, 2048] ----------------------------------
// range(0): 0 = Add(a, b), both compact; 1 = Add(a.T(), b); 2 = Add(s, b)
// with s columns [1024, 3072) of a [2048, 4096] tensor (a column Slice);
// 3 = Add(row.Expand({2048, 2048}), b) with row [1, 2048].
// range(0): the view (0 contiguous, 1 T(), 2 column Slice, 3 Expand);
// range(1): n, the side of the [n, n] operands: 2048 (16 MiB each, beyond
// the L3 with three of them) and 512 (1 MiB each, within the L2).

void BM_EvmAddView(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const int64_t kViewN = state.range(1);
  Pair a = RandomPair(kViewN, mode == 2 ? 2 * kViewN : kViewN, 6);
  Pair row = RandomPair(1, kViewN, 7), b = RandomPair(kViewN, kViewN, 8);
  Tensor x = a.evm;
  at::Tensor tx = a.torch;
  if (mode == 1) x = a.evm.T(), tx = a.torch.t();
  if (mode == 2)
    x = a.evm.Slice(1, kViewN / 2, 3 * kViewN / 2),
    tx = a.torch.slice(1, kViewN / 2, 3 * kViewN / 2);
  if (mode == 3) x = row.evm.Expand({kViewN, kViewN}), tx = row.torch.expand({kViewN, kViewN});
  ExpectSame(state, ops::Add(x, b.evm), tx + b.torch, 0);
  TimeEvm(state, [&] { return ops::Add(x, b.evm); });
}
BENCHMARK(BM_EvmAddView)->ArgsProduct({{0, 1, 2, 3}, {2048, 512}})->UseRealTime();

void BM_TorchAddView(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const int64_t kViewN = state.range(1);
  at::Tensor a = at::randn({kViewN, mode == 2 ? 2 * kViewN : kViewN});
  at::Tensor row = at::randn({1, kViewN}), b = at::randn({kViewN, kViewN});
  at::Tensor x = a;
  if (mode == 1) x = a.t();
  if (mode == 2) x = a.slice(1, kViewN / 2, 3 * kViewN / 2);
  if (mode == 3) x = row.expand({kViewN, kViewN});
  TimeTorch(state, [&] { return x + b; });
}
BENCHMARK(BM_TorchAddView)->ArgsProduct({{0, 1, 2, 3}, {2048, 512}})->UseRealTime();

// --- A strided view into a unary op ------------------------------------------
// range(0): 0 = Relu, 1 = Exp; range(1): the view (0 contiguous [n, n], 1
// T(), 2 columns [n/2, 3n/2) of [n, 2n]); range(2): n.

Pair ViewPair(int64_t mode, int64_t n, Tensor* x, at::Tensor* tx) {
  Pair a = RandomPair(n, mode == 2 ? 2 * n : n, 9);
  *x = a.evm;
  *tx = a.torch;
  if (mode == 1) *x = a.evm.T(), *tx = a.torch.t();
  if (mode == 2) *x = a.evm.Slice(1, n / 2, 3 * n / 2), *tx = a.torch.slice(1, n / 2, 3 * n / 2);
  return a;
}

void BM_EvmUnaryView(benchmark::State& state) {
  const bool exp = state.range(0) == 1;
  Tensor x;
  at::Tensor tx;
  const Pair keep = ViewPair(state.range(1), state.range(2), &x, &tx);
  auto run = [&] { return exp ? ops::Exp(x) : ops::Relu(x); };
  ExpectSame(state, run(), exp ? tx.exp() : tx.relu(), exp ? 1e-6 : 0);
  TimeEvm(state, run);
}
BENCHMARK(BM_EvmUnaryView)->ArgsProduct({{0, 1}, {0, 1, 2}, {2048, 512}})->UseRealTime();

void BM_TorchUnaryView(benchmark::State& state) {
  const bool exp = state.range(0) == 1;
  Tensor x;
  at::Tensor tx;
  const Pair keep = ViewPair(state.range(1), state.range(2), &x, &tx);
  TimeTorch(state, [&] { return exp ? tx.exp() : tx.relu(); });
}
BENCHMARK(BM_TorchUnaryView)->ArgsProduct({{0, 1}, {0, 1, 2}, {2048, 512}})->UseRealTime();

// --- A transposing copy alone: the floor under an op on a T() view ---------
// x.T().Contiguous() (the StridedCopy kernel) and libtorch's
// x.t().contiguous(): an op on x.T() with a compact output reads the same
// bytes in the same order and writes as many, so it costs at least this.
// range(0): n, the side of x [n, n].

void BM_EvmTransposeCopy(benchmark::State& state) {
  Tensor x;
  at::Tensor tx;
  const Pair keep = ViewPair(1, state.range(0), &x, &tx);
  ExpectSame(state, x.Contiguous(), tx.contiguous(), 0);
  TimeEvm(state, [&] { return x.Contiguous(); });
}
BENCHMARK(BM_EvmTransposeCopy)->Arg(2048)->Arg(512)->UseRealTime();

void BM_TorchTransposeCopy(benchmark::State& state) {
  Tensor x;
  at::Tensor tx;
  const Pair keep = ViewPair(1, state.range(0), &x, &tx);
  TimeTorch(state, [&] { return tx.contiguous(); });
}
BENCHMARK(BM_TorchTransposeCopy)->Arg(2048)->Arg(512)->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  at::set_num_threads(1);
  using eagervm::bench::Ratio;
  return eagervm::bench::RunWithRatios(
      argc, argv,
      {
          {"MatMul 512: b.T flag / contiguous", "BM_EvmMatMul/512/1", "BM_EvmMatMul/512/0",
           "<= 1.05x"},
          {"MatMul 512: T() view / contiguous", "BM_EvmMatMul/512/2", "BM_EvmMatMul/512/0",
           "<= 1.05x"},
          {"MatMul 1024: b.T flag / contiguous", "BM_EvmMatMul/1024/1", "BM_EvmMatMul/1024/0",
           "<= 1.05x"},
          {"MatMul 1024: T() view / contiguous", "BM_EvmMatMul/1024/2", "BM_EvmMatMul/1024/0",
           "<= 1.05x"},
          {"  libtorch MatMul 512: b.t() / contiguous", "BM_TorchMatMul/512/1",
           "BM_TorchMatMul/512/0", ""},
          {"  libtorch MatMul 1024: b.t() / contiguous", "BM_TorchMatMul/1024/1",
           "BM_TorchMatMul/1024/0", ""},
          {"  MatMul 1024 contiguous: eagervm / libtorch", "BM_EvmMatMul/1024/0",
           "BM_TorchMatMul/1024/0", ""},
          {"MatMul [256,512]x[512,10]: eagervm / libtorch", "BM_EvmSkinnyMatMul/0",
           "BM_TorchSkinnyMatMul/0", ""},
          {"MatMul [256,512]^T x [256,10]: eagervm / libtorch", "BM_EvmSkinnyMatMul/1",
           "BM_TorchSkinnyMatMul/1", ""},
          {"MatMul [256,10] x [512,10]^T: eagervm / libtorch", "BM_EvmSkinnyMatMul/2",
           "BM_TorchSkinnyMatMul/2", ""},
          {"Softmax [1024,1024]: eagervm / libtorch", "BM_EvmSoftmax", "BM_TorchSoftmax",
           "<= 1.5x"},
          {"IndexSelect 64 of [50000,256]: eagervm / libtorch", "BM_EvmIndexSelect",
           "BM_TorchIndexSelect", "<= 1.5x"},
          {"Gelu [256,512]: eagervm / libtorch", "BM_EvmModelOp/0", "BM_TorchModelOp/0", ""},
          {"LayerNorm [256,128]: eagervm / libtorch", "BM_EvmModelOp/1", "BM_TorchModelOp/1", ""},
          {"Softmax [16,64,64]: eagervm / libtorch", "BM_EvmModelOp/2", "BM_TorchModelOp/2", ""},
          {"Add(a.T(), b) / Add(a, b), [2048,2048]", "BM_EvmAddView/1/2048", "BM_EvmAddView/0/2048",
           "<= 1.3x"},
          {"Add(column Slice, b) / Add(a, b), [2048,2048]", "BM_EvmAddView/2/2048",
           "BM_EvmAddView/0/2048", "<= 1.3x"},
          {"Add(Expand, b) / Add(a, b), [2048,2048]", "BM_EvmAddView/3/2048",
           "BM_EvmAddView/0/2048", "<= 1.3x"},
          {"  libtorch a.t() + b / a + b, [2048,2048]", "BM_TorchAddView/1/2048",
           "BM_TorchAddView/0/2048", ""},
          {"  libtorch slice + b / a + b, [2048,2048]", "BM_TorchAddView/2/2048",
           "BM_TorchAddView/0/2048", ""},
          {"  libtorch expand + b / a + b, [2048,2048]", "BM_TorchAddView/3/2048",
           "BM_TorchAddView/0/2048", ""},
          {"  Add(a, b) [2048,2048]: eagervm / libtorch", "BM_EvmAddView/0/2048",
           "BM_TorchAddView/0/2048", ""},
          {"Add(a.T(), b) / Add(a, b), [512,512]", "BM_EvmAddView/1/512", "BM_EvmAddView/0/512",
           "<= 1.3x"},
          {"Add(column Slice, b) / Add(a, b), [512,512]", "BM_EvmAddView/2/512",
           "BM_EvmAddView/0/512", "<= 1.3x"},
          {"Add(Expand, b) / Add(a, b), [512,512]", "BM_EvmAddView/3/512", "BM_EvmAddView/0/512",
           "<= 1.3x"},
          {"  libtorch a.t() + b / a + b, [512,512]", "BM_TorchAddView/1/512",
           "BM_TorchAddView/0/512", ""},
          {"  libtorch slice + b / a + b, [512,512]", "BM_TorchAddView/2/512",
           "BM_TorchAddView/0/512", ""},
          {"  libtorch expand + b / a + b, [512,512]", "BM_TorchAddView/3/512",
           "BM_TorchAddView/0/512", ""},
          {"  Add(a, b) [512,512]: eagervm / libtorch", "BM_EvmAddView/0/512",
           "BM_TorchAddView/0/512", ""},
          {"Relu(x.T()) / Relu(x), [2048,2048]", "BM_EvmUnaryView/0/1/2048",
           "BM_EvmUnaryView/0/0/2048", "<= 1.3x"},
          {"Relu(column Slice) / Relu(x), [2048,2048]", "BM_EvmUnaryView/0/2/2048",
           "BM_EvmUnaryView/0/0/2048", "<= 1.3x"},
          {"  libtorch relu: x.t() / x, [2048,2048]", "BM_TorchUnaryView/0/1/2048",
           "BM_TorchUnaryView/0/0/2048", ""},
          {"Exp(x.T()) / Exp(x), [2048,2048]", "BM_EvmUnaryView/1/1/2048",
           "BM_EvmUnaryView/1/0/2048", "<= 1.3x"},
          {"Exp(column Slice) / Exp(x), [2048,2048]", "BM_EvmUnaryView/1/2/2048",
           "BM_EvmUnaryView/1/0/2048", "<= 1.3x"},
          {"  libtorch exp: x.t() / x, [2048,2048]", "BM_TorchUnaryView/1/1/2048",
           "BM_TorchUnaryView/1/0/2048", ""},
          {"  x.T().Contiguous() alone / Relu(x), [2048,2048]", "BM_EvmTransposeCopy/2048",
           "BM_EvmUnaryView/0/0/2048", ""},
          {"  libtorch x.t().contiguous() / x.relu(), [2048,2048]", "BM_TorchTransposeCopy/2048",
           "BM_TorchUnaryView/0/0/2048", ""},
          {"  libtorch x.t().contiguous() / a + b, [2048,2048]", "BM_TorchTransposeCopy/2048",
           "BM_TorchAddView/0/2048", ""},
          {"Relu(x.T()) / Relu(x), [512,512]", "BM_EvmUnaryView/0/1/512", "BM_EvmUnaryView/0/0/512",
           "<= 1.3x"},
          {"Relu(column Slice) / Relu(x), [512,512]", "BM_EvmUnaryView/0/2/512",
           "BM_EvmUnaryView/0/0/512", "<= 1.3x"},
          {"  libtorch relu: x.t() / x, [512,512]", "BM_TorchUnaryView/0/1/512",
           "BM_TorchUnaryView/0/0/512", ""},
          {"Exp(x.T()) / Exp(x), [512,512]", "BM_EvmUnaryView/1/1/512", "BM_EvmUnaryView/1/0/512",
           "<= 1.3x"},
          {"Exp(column Slice) / Exp(x), [512,512]", "BM_EvmUnaryView/1/2/512",
           "BM_EvmUnaryView/1/0/512", "<= 1.3x"},
          {"  libtorch exp: x.t() / x, [512,512]", "BM_TorchUnaryView/1/1/512",
           "BM_TorchUnaryView/1/0/512", ""},
          {"  x.T().Contiguous() alone / Relu(x), [512,512]", "BM_EvmTransposeCopy/512",
           "BM_EvmUnaryView/0/0/512", ""},
          {"  libtorch x.t().contiguous() / x.relu(), [512,512]", "BM_TorchTransposeCopy/512",
           "BM_TorchUnaryView/0/0/512", ""},
          {"  libtorch x.t().contiguous() / a + b, [512,512]", "BM_TorchTransposeCopy/512",
           "BM_TorchAddView/0/512", ""},
      });
}
