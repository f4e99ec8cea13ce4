// GPU benchmarks of the CUDA backend (run by scripts/gpu_check.sh), each a
// ratio against a raw CUDA baseline measured in the same run:
//   1. tiny op rate: MulScalarInplace on 1 float through the VM, vs a raw
//      loop launching the same kernel on one stream (goal >= 0.8x);
//   2. Item() latency of a 1-float CUDA tensor, vs a raw cudaMemcpyAsync into
//      pinned memory + cudaStreamSynchronize (goal <= 1.2x); and of an op
//      followed by Item() of its result, vs launch + copy + synchronise;
//   3. 1 GiB float32 add through the VM, vs a raw device-to-device copy of
//      1 GiB (bandwidths counting bytes read + written);
//   4. 1000 dependent tiny kernels: eager, a graph through the flat executor
//      and a graph replayed as a CUDA graph, vs a raw launch loop and a raw
//      cudaGraphLaunch of the same kernels.
// A plain main (no Google Benchmark loop): each case has a fixed, short
// budget so the whole run stays within seconds, and the output is one table.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "eagervm/eagervm.h"
#include "kernels/cuda/launchers.h"

namespace {

using eagervm::Device;
using eagervm::DType;
using eagervm::Tensor;
namespace kc = eagervm::kernels::cuda;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

// A raw 1-float buffer on a raw stream, and the in-place scale kernel the
// VM runs for MulScalarInplace: the baseline's side.
struct RawScale {
  cudaStream_t s = nullptr;
  float* d = nullptr;
  kc::ScalarArg one;
  RawScale() {
    Check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    Check(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(float)), "cudaMalloc");
    one.f = 1.0;
  }
  ~RawScale() {
    cudaFree(d);
    cudaStreamDestroy(s);
  }
  void Launch() const {
    (void)kc::LaunchBinaryScalar(kc::BinaryKind::kMul, kc::DT::kFloat32, d, d, one, 1, s);
  }
};

struct Row {
  const char* name;
  double vm, raw;
  const char* unit;
  bool higher_is_better;
  const char* goal;
};

// 1. Launch rate (ops/s) of a 1-element in-place scale.
Row TinyOpRate(int n) {
  Tensor x = eagervm::Full({1}, 1.0f, DType::kFloat32, Device::Cuda(0));
  (void)x.Wait();
  auto vm_run = [&] {
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) (void)eagervm::ops::MulScalarInplace(x, 1.0f);
    (void)eagervm::Sync();
    return n / Seconds(Clock::now() - t0);
  };
  const RawScale raw_scale;
  auto raw_run = [&] {
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) raw_scale.Launch();
    Check(cudaStreamSynchronize(raw_scale.s), "cudaStreamSynchronize");
    return n / Seconds(Clock::now() - t0);
  };
  vm_run();
  raw_run();  // warm-up
  std::vector<double> vm, raw;
  for (int r = 0; r < 5; ++r) {
    vm.push_back(vm_run());
    raw.push_back(raw_run());
  }
  // Where the time goes, for the record: the submitting thread's share (the
  // calls' return) vs the drain, and what the VM counted meanwhile.
  const eagervm::VmStats a = eagervm::VirtualMachine::Get().GetStats();
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) (void)eagervm::ops::MulScalarInplace(x, 1.0f);
  const auto t1 = Clock::now();
  (void)eagervm::Sync();
  const auto t2 = Clock::now();
  const eagervm::VmStats b = eagervm::VirtualMachine::Get().GetStats();
  std::printf(
      "tiny ops, %d: submit %.2f us/op, drain %.2f us/op; per op: scheduler wakeups %.3f, "
      "batched %.3f, inlined %.3f, donated %.3f; backpressure waits %llu, run-ahead waits %llu, "
      "peak in flight %lld\n",
      n, Seconds(t1 - t0) * 1e6 / n, Seconds(t2 - t1) * 1e6 / n,
      double(b.scheduler_wakeups - a.scheduler_wakeups) / n, double(b.batched - a.batched) / n,
      double(b.inlined - a.inlined) / n, double(b.donated - a.donated) / n,
      static_cast<unsigned long long>(b.backpressure_waits - a.backpressure_waits),
      static_cast<unsigned long long>(b.run_ahead_waits - a.run_ahead_waits),
      static_cast<long long>(b.peak_in_flight));
  return {"tiny op rate (MulScalarInplace, 1 float)",
          Median(vm),
          Median(raw),
          "ops/s",
          true,
          ">= 0.8x"};
}

// 2. Item() latency (us).
Row ItemLatency(int n) {
  Tensor x = eagervm::Full({1}, 2.0f, DType::kFloat32, Device::Cuda(0));
  (void)x.Wait();
  std::vector<double> vm, raw;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    (void)x.Item<float>();
    vm.push_back(Seconds(Clock::now() - t0) * 1e6);
  }
  cudaStream_t s;
  Check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  float *d = nullptr, *h = nullptr;
  Check(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(float)), "cudaMalloc");
  Check(cudaHostAlloc(reinterpret_cast<void**>(&h), sizeof(float), cudaHostAllocDefault),
        "cudaHostAlloc");
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    cudaMemcpyAsync(h, d, sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    raw.push_back(Seconds(Clock::now() - t0) * 1e6);
  }
  cudaFreeHost(h);
  cudaFree(d);
  cudaStreamDestroy(s);
  vm.erase(vm.begin(), vm.begin() + n / 10);  // warm-up
  raw.erase(raw.begin(), raw.begin() + n / 10);
  return {"Item() latency (median)", Median(vm), Median(raw), "us", false, "<= 1.2x"};
}

// 2b. An op, then Item() of its result (us): a training loop reading its
// loss. Raw: the launch, cudaMemcpyAsync into pinned memory, and
// cudaStreamSynchronize.
Row OpThenItemLatency(int n) {
  Tensor x = eagervm::Full({1}, 2.0f, DType::kFloat32, Device::Cuda(0));
  (void)x.Wait();
  std::vector<double> vm, raw;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    (void)eagervm::ops::MulScalarInplace(x, 1.0f);
    (void)x.Item<float>();
    vm.push_back(Seconds(Clock::now() - t0) * 1e6);
  }
  const RawScale r;
  float* h = nullptr;
  Check(cudaHostAlloc(reinterpret_cast<void**>(&h), sizeof(float), cudaHostAllocDefault),
        "cudaHostAlloc");
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    r.Launch();
    cudaMemcpyAsync(h, r.d, sizeof(float), cudaMemcpyDeviceToHost, r.s);
    cudaStreamSynchronize(r.s);
    raw.push_back(Seconds(Clock::now() - t0) * 1e6);
  }
  cudaFreeHost(h);
  vm.erase(vm.begin(), vm.begin() + n / 10);  // warm-up
  raw.erase(raw.begin(), raw.begin() + n / 10);
  return {"op + Item() latency (median)", Median(vm), Median(raw), "us", false, "report"};
}

// 3. 1 GiB add bandwidth vs device copy bandwidth (GB/s, read + written).
Row BigAdd(int reps) {
  const int64_t n = (int64_t{1} << 30) / 4;
  const double gib = 1024.0 * 1024 * 1024;
  Tensor a = eagervm::Full({n}, 1.0f, DType::kFloat32, Device::Cuda(0));
  Tensor b = eagervm::Full({n}, 2.0f, DType::kFloat32, Device::Cuda(0));
  (void)eagervm::Sync();
  std::vector<double> vm, raw;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t0 = Clock::now();
    Tensor c = eagervm::ops::Add(a, b);
    (void)c.Wait();
    if (r > 0) vm.push_back(3 * gib / Seconds(Clock::now() - t0) / 1e9);
  }
  void *src = nullptr, *dst = nullptr;
  Check(cudaMalloc(&src, static_cast<size_t>(gib)), "cudaMalloc");
  Check(cudaMalloc(&dst, static_cast<size_t>(gib)), "cudaMalloc");
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int r = 0; r < reps + 1; ++r) {
    cudaEventRecord(e0, nullptr);
    cudaMemcpyAsync(dst, src, static_cast<size_t>(gib), cudaMemcpyDeviceToDevice, nullptr);
    cudaEventRecord(e1, nullptr);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r > 0) raw.push_back(2 * gib / (ms / 1e3) / 1e9);
  }
  cudaFree(src);
  cudaFree(dst);
  return {"1 GiB add vs D2D copy (bandwidth)", Median(vm), Median(raw), "GB/s", true, "report"};
}

// 4. 1000 dependent tiny kernels (MulScalarInplace on 1 float) + sync, in us:
// eagerly, as a graph through the flat executor, as a graph replayed by one
// CUDA graph launch, against a raw launch loop and a raw cudaGraphLaunch.
std::vector<Row> ThousandKernels(int reps) {
  constexpr int kN = 1000;
  Tensor x = eagervm::Full({1}, 1.0f, DType::kFloat32, Device::Cuda(0));
  (void)x.Wait();
  auto capture = [&](bool device_graphs) {
    eagervm::GraphOptions o;
    o.device_graphs = device_graphs;
    auto g = eagervm::Graph::Capture(
        {x.meta()},
        [&](const std::vector<Tensor>& in) {
          for (int i = 0; i < kN; ++i) (void)eagervm::ops::MulScalarInplace(in[0], 1.0f);
          return std::vector<Tensor>{};
        },
        o);
    if (!g.ok()) {
      std::fprintf(stderr, "Graph::Capture: %s\n", g.status().ToString().c_str());
      std::exit(1);
    }
    return *std::move(g);
  };
  const eagervm::Graph flat = capture(false), replay = capture(true);
  auto time_us = [&](auto&& body) {
    body();
    body();  // warm-up (the replay records its CUDA graph on the second run)
    std::vector<double> v;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      body();
      v.push_back(Seconds(Clock::now() - t0) * 1e6);
    }
    return Median(v);
  };
  const Tensor in[] = {x};
  const double eager = time_us([&] {
    for (int i = 0; i < kN; ++i) (void)eagervm::ops::MulScalarInplace(x, 1.0f);
    (void)eagervm::Sync();
  });
  const double flat_us = time_us([&] {
    (void)flat.Run(in);
    (void)eagervm::Sync();
  });
  const double replay_us = time_us([&] {
    (void)replay.Run(in);
    (void)eagervm::Sync();
  });
  const RawScale raw;
  const cudaStream_t s = raw.s;
  const double raw_loop = time_us([&] {
    for (int i = 0; i < kN; ++i) raw.Launch();
    Check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  });
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  Check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < kN; ++i) raw.Launch();
  Check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
  Check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  const double raw_graph = time_us([&] {
    Check(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
    Check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  });
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  const eagervm::GraphStats st = replay.GetStats();
  std::printf("graph replay: %lld CUDA graph launches, %lld fallbacks\n",
              static_cast<long long>(st.device_graph_runs),
              static_cast<long long>(st.device_graph_fallbacks));
  return {{"1000 tiny kernels: eager vs raw launch loop", eager, raw_loop, "us", false, "report"},
          {"1000 tiny kernels: graph, flat executor vs raw launch loop", flat_us, raw_loop, "us",
           false, "report"},
          {"1000 tiny kernels: graph, CUDA-graph replay vs raw launch loop", replay_us, raw_loop,
           "us", false, "report"},
          {"1000 tiny kernels: graph, CUDA-graph replay vs raw cudaGraphLaunch", replay_us,
           raw_graph, "us", false, "<= 1.5x"}};
}

}  // namespace

int main() {
  if (eagervm::CudaDeviceCount() == 0) {
    std::printf("cuda_vm_bench: no CUDA device (CudaDeviceCount() == 0); nothing measured\n");
    return 0;
  }
  const bool quick = std::getenv("EAGERVM_BENCH_QUICK") != nullptr;
  std::vector<Row> rows = {TinyOpRate(quick ? 2000 : 20000), ItemLatency(quick ? 200 : 2000),
                           OpThenItemLatency(quick ? 200 : 2000), BigAdd(quick ? 2 : 5)};
  for (const Row& r : ThousandKernels(quick ? 5 : 20)) rows.push_back(r);
  std::printf(
      "\n| case | eagervm | raw CUDA | unit | ratio | goal |\n|---|---:|---:|---|---:|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %.3g | %.3g | %s | %.2fx | %s |\n", r.name, r.vm, r.raw, r.unit,
                r.vm / r.raw, r.goal);
  }
  std::printf("\n(ratio = eagervm / raw; for latency lower is better)\n");
  return eagervm::Sync().ok() ? 0 : 1;
}
