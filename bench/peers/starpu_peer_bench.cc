// StarPU 1.3 (Debian libstarpu-dev) on bench/vm_bench.cc's workloads: tasks
// on registered variables, dependences inferred from data access modes like
// eagervm's, tasks created with starpu_task_create (the cheap path; no
// starpu_task_insert varargs). StarPU's own defaults for workers and
// scheduler; scripts/bench_peers.sh sets STARPU_SILENT=1.
#include <starpu.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "common/bench_util.h"

namespace eagervm::bench {
namespace {

constexpr int kChainOps = 20'000;

void AddKernel(void* buffers[], void*) {
  *reinterpret_cast<float*>(STARPU_VARIABLE_GET_PTR(buffers[0])) +=
      *reinterpret_cast<const float*>(STARPU_VARIABLE_GET_PTR(buffers[1]));
}
void EmptyKernel(void*[], void*) {}

struct Codelets {
  starpu_codelet add;    // RW x, R one: x += one
  starpu_codelet empty;  // RW x, does nothing
  Codelets() {
    starpu_codelet_init(&add);
    add.cpu_funcs[0] = AddKernel;
    add.nbuffers = 2;
    add.modes[0] = STARPU_RW;
    add.modes[1] = STARPU_R;
    starpu_codelet_init(&empty);
    empty.cpu_funcs[0] = EmptyKernel;
    empty.nbuffers = 1;
    empty.modes[0] = STARPU_RW;
  }
};
Codelets* codelets = nullptr;

// A registered 1-float variable; unregistered (written back) at scope exit.
class Var {
 public:
  explicit Var(float v) : value_(new float(v)) {
    starpu_variable_data_register(&handle_, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(value_),
                                  sizeof(float));
  }
  ~Var() {
    starpu_data_unregister(handle_);
    delete value_;
  }
  Var(const Var&) = delete;
  Var& operator=(const Var&) = delete;
  starpu_data_handle_t h() const { return handle_; }
  float value() const { return *value_; }

 private:
  float* value_;
  starpu_data_handle_t handle_;
};

void Submit(benchmark::State& state, starpu_codelet* cl, starpu_data_handle_t x,
            starpu_data_handle_t one, bool synchronous = false) {
  starpu_task* task = starpu_task_create();
  task->cl = cl;
  task->handles[0] = x;
  if (one != nullptr) task->handles[1] = one;
  task->synchronous = synchronous ? 1 : 0;
  if (starpu_task_submit(task) != 0) state.SkipWithError("starpu_task_submit failed");
}

void BM_StarpuChain(benchmark::State& state) {
  Var t(0), one(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) Submit(state, &codelets->add, t.h(), one.h());
    starpu_task_wait_for_all();
    timer.Add(WallNanos() - t0, kChainOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_StarpuChain)->UseRealTime();

// Dependent chain of empty tasks on one RW handle: scheduling cost alone.
void BM_StarpuEmptyChain(benchmark::State& state) {
  Var t(0);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) Submit(state, &codelets->empty, t.h(), nullptr);
    starpu_task_wait_for_all();
    timer.Add(WallNanos() - t0, kChainOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_StarpuEmptyChain)->UseRealTime();

void BM_StarpuIndependent(benchmark::State& state) {
  std::vector<std::unique_ptr<Var>> ts;
  for (int k = 0; k < 64; ++k) ts.push_back(std::make_unique<Var>(0));
  Var one(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) Submit(state, &codelets->add, ts[i & 63]->h(), one.h());
    starpu_task_wait_for_all();
    timer.Add(WallNanos() - t0, kChainOps);
  }
  timer.Report(state);
}
BENCHMARK(BM_StarpuIndependent)->UseRealTime();

// The submitting thread's CPU time in the submission loop only.
void BM_StarpuSubmit(benchmark::State& state) {
  Var t(0), one(1);
  OpTimer cpu, wall;
  for (auto _ : state) {
    const int64_t c0 = ThreadCpuNanos(), w0 = WallNanos();
    for (int i = 0; i < kChainOps; ++i) Submit(state, &codelets->add, t.h(), one.h());
    cpu.Add(ThreadCpuNanos() - c0, kChainOps);
    wall.Add(WallNanos() - w0, kChainOps);
    state.PauseTiming();
    starpu_task_wait_for_all();
    state.ResumeTiming();
  }
  cpu.Report(state);
  wall.Report(state, "wall_ns_per_op");
}
BENCHMARK(BM_StarpuSubmit)->UseRealTime();

// One task submitted synchronously (submit + wait): StarPU's round trip.
void BM_StarpuSubmitWait(benchmark::State& state) {
  Var t(0), one(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    Submit(state, &codelets->add, t.h(), one.h(), /*synchronous=*/true);
    timer.Add(WallNanos() - t0, 1);
  }
  timer.Report(state);
}
BENCHMARK(BM_StarpuSubmitWait)->UseRealTime();

void BM_StarpuInFlight(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Var t(0), one(1);
  OpTimer timer;
  for (auto _ : state) {
    const int64_t t0 = WallNanos();
    for (int i = 0; i < n; ++i) Submit(state, &codelets->add, t.h(), one.h());
    starpu_task_wait_for_all();
    timer.Add(WallNanos() - t0, n);
  }
  timer.Report(state);
}
BENCHMARK(BM_StarpuInFlight)->RangeMultiplier(4)->Range(1, 16384)->UseRealTime();

}  // namespace
}  // namespace eagervm::bench

int main(int argc, char** argv) {
  if (starpu_init(nullptr) != 0) {
    std::fprintf(stderr, "starpu_init failed\n");
    return 1;
  }
  eagervm::bench::Codelets cls;
  eagervm::bench::codelets = &cls;
  const int rc = eagervm::bench::RunWithRatios(
      argc, argv,
      {{"chain of adds / chain of empty tasks", "BM_StarpuChain", "BM_StarpuEmptyChain", ""}});
  starpu_shutdown();
  return rc;
}
