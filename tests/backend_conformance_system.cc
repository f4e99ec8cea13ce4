// The backend conformance suite (backend_conformance.h): the allocator
// (stats, caching, the memory limit: ResourceExhausted then recovery,
// EmptyCache), errors after a failed kernel at every host entry point, graph
// mode (view and aliased inputs, the device-graph path and the plain plan),
// DLPack, steady-state allocation counts and reductions past the kernels'
// grid and chunk limits. The suite's binaries run with a memory limit of
// kConformanceMemoryLimit for the CPU and the backend.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backend_conformance.h"

#ifdef EAGERVM_CONFORMANCE_DLPACK
#include <dlpack/dlpack.h>

#include "eagervm/dlpack.h"
#endif

namespace eagervm::conformance {
namespace {

MemoryStats MemOf(Device d) {
  for (const MemoryStats& m : VirtualMachine::Get().GetStats().memory) {
    if (m.device == d) return m;
  }
  MemoryStats none;
  none.device = d;
  return none;
}

constexpr int64_t kMiB = int64_t{1} << 20;

}  // namespace

// Live bytes are counted while a tensor lives and not after it was
// released; reserved >= in use; peak >= in use; EmptyCache returns the
// cache (reserved == in use after it).
TEST_P(BackendConformance, AllocatorStatsAndEmptyCache) {
  ASSERT_TRUE(Sync().ok());
  const MemoryStats before = MemOf(dev());
  {
    Tensor x = Zeros({kMiB}, DType::kFloat32, dev());  // 4 MiB
    ASSERT_TRUE(x.Wait().ok());
    const MemoryStats live = MemOf(dev());
    EXPECT_GE(live.bytes_in_use - before.bytes_in_use, 4 * kMiB);
    EXPECT_GE(live.peak_bytes_in_use, live.bytes_in_use);
    EXPECT_GE(live.bytes_reserved, live.bytes_in_use);
  }
  ASSERT_TRUE(Sync().ok());
  const MemoryStats after = MemOf(dev());
  EXPECT_LT(after.bytes_in_use - before.bytes_in_use, 4 * kMiB) << "released, still in use";
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
  const MemoryStats emptied = MemOf(dev());
  EXPECT_EQ(emptied.bytes_reserved, emptied.bytes_in_use) << "EmptyCache left a cache";
  // The device works after EmptyCache.
  EXPECT_EQ(Floats(ops::AddScalar(Full({8}, 1.0f, DType::kFloat32, dev()), 1.0))[7], 2.0f);
}

// A freed block of one size serves the next request of that size from the
// cache (where the allocator reports its cache).
TEST_P(BackendConformance, AllocatorReusesFreedBlocks) {
  if (!GetParam().reports_cache) {
    GTEST_SKIP() << GetParam().name << "'s allocator does not report cache hits "
                 << "(its pool is the driver's)";
  }
  ASSERT_TRUE(Sync().ok());
  { ASSERT_TRUE(Zeros({3 * kMiB / 4}, DType::kFloat32, dev()).Wait().ok()); }
  ASSERT_TRUE(Sync().ok());
  const MemoryStats before = MemOf(dev());
  { ASSERT_TRUE(Zeros({3 * kMiB / 4}, DType::kFloat32, dev()).Wait().ok()); }
  ASSERT_TRUE(Sync().ok());
  const MemoryStats after = MemOf(dev());
  EXPECT_GT(after.cache_hits, before.cache_hits);
  EXPECT_EQ(after.system_allocs, before.system_allocs) << "the freed block was not reused";
}

// Past the memory limit: ResourceExhausted at Wait (no crash, no wrong
// answer), the device stays usable, and once memory was released the same
// request succeeds (recovering the cache where it counts against the limit).
TEST_P(BackendConformance, OutOfMemoryIsResourceExhaustedThenRecovers) {
  ASSERT_TRUE(Sync().ok());
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
  const int64_t limit = kConformanceMemoryLimit;
  const int64_t big = limit / 2 / 4 + kMiB;  // float32 elements: just over half the limit
  const MemoryStats before = MemOf(dev());
  {
    Tensor a = Zeros({big}, DType::kFloat32, dev());
    ASSERT_TRUE(a.Wait().ok()) << a.Wait();
    Tensor b = Zeros({big}, DType::kFloat32, dev());  // does not fit beside a
    absl::Status s = b.Wait();
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    EXPECT_FALSE(b.To(Device::Cpu()).ToVector<float>().ok());
    EXPECT_EQ(Floats(ops::AddScalar(a.Slice(0, 4), 1.0)), (std::vector<float>(4, 1.0f)));
  }  // a released: cached where the allocator caches
  ASSERT_TRUE(Sync().ok());
  // Another size than a's: not served by a's cached block, which (where the
  // cache counts against the limit) must go back to the system first.
  const int64_t other = big + 2 * kMiB;
  Tensor c = Full({other}, 3.0f, DType::kFloat32, dev());
  ASSERT_TRUE(c.Wait().ok()) << c.Wait();
  EXPECT_EQ(Floats(c.Slice(other - 2, other)), (std::vector<float>{3.0f, 3.0f}));
  if (GetParam().reports_cache) {
    const MemoryStats after = MemOf(dev());
    EXPECT_GT(after.oom_failures, before.oom_failures);
    EXPECT_GT(after.oom_recoveries, before.oom_recoveries) << "c needed a's cached block back";
  }
}

// Steady state: a loop of the same work allocates nothing new from the
// system after its warm-up (device memory where the allocator reports its
// cache, the host's staging memory always).
TEST_P(BackendConformance, SteadyStateAllocatesNothingNew) {
  auto step = [&](int i) {
    Tensor x = Full({1000 + 100 * (i % 3)}, 1.0f, DType::kFloat32, dev());
    Tensor y = ops::Exp(ops::AddScalar(x, -1.0));
    absl::StatusOr<std::vector<float>> v = y.To(Device::Cpu()).ToVector<float>();
    ASSERT_TRUE(v.ok()) << v.status();
    ASSERT_EQ((*v)[0], 1.0f);
    ASSERT_TRUE(Sync().ok());  // the releases done: no block in flight
  };
  for (int i = 0; i < 12; ++i) step(i);
  ASSERT_TRUE(Sync().ok());
  const MemoryStats dev_before = MemOf(dev()), cpu_before = MemOf(Device::Cpu());
  for (int i = 0; i < 60; ++i) step(i);
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(MemOf(Device::Cpu()).system_allocs, cpu_before.system_allocs);
  if (GetParam().reports_cache) EXPECT_EQ(MemOf(dev()).system_allocs, dev_before.system_allocs);
}

// After a failed kernel, every way of reading its output reports the error
// instead of bytes: a fresh copy to the host, a CPU op on that copy, a copy
// into existing host memory, Item, and a user's read callback (not called).
TEST_P(BackendConformance, AFailedResultIsAnErrorAtEveryHostEntryPoint) {
  Tensor x = Full({16}, 2.0f, DType::kFloat32, dev());
  absl::StatusOr<TensorList> out = ops::Call("ConfFail", {x});
  ASSERT_TRUE(out.ok()) << out.status();
  Tensor y = (*out)[0];
  Tensor fresh = y.To(Device::Cpu());
  EXPECT_FALSE(fresh.ToVector<float>().ok());
  EXPECT_FALSE(ops::AddScalar(fresh, 1.0).ToVector<float>().ok());
  Tensor host = Zeros({16}, DType::kFloat32);
  absl::Status copied = ops::CopyInto(host, y);
  EXPECT_TRUE(!copied.ok() || !host.ToVector<float>().ok());
  EXPECT_FALSE(y.Slice(0, 1).Reshape({}).Item<float>().ok());
  bool called = false;
  absl::Status staged = Access(y, vm::AccessMode::kRead, [&](void*, size_t) { called = true; });
  (void)Sync();
  EXPECT_FALSE(staged.ok() && called) << "a read callback saw a failed tensor's bytes";
  (void)Sync();
  EXPECT_EQ(Floats(ops::AddScalar(x, 1.0))[15], 3.0f);  // the device stays usable
  EXPECT_TRUE(Sync().ok());
}

// Graph mode on the backend, with the device-graph path on and off: equal
// to eager on every run, for a view input (an offset into its storage) and
// for one tensor bound to two inputs that the graph writes through one and
// reads through the other.
TEST_P(BackendConformance, GraphWithViewAndAliasedInputsEqualsEagerOnBothPaths) {
  auto fn = [](const std::vector<Tensor>& in) {
    EXPECT_TRUE(ops::MulScalarInplace(in[0], 2.0).ok());
    Tensor h = ops::Add(in[0], in[1]);
    return std::vector<Tensor>{ops::Relu(h), ops::Sum(h, 0)};
  };
  const TensorMeta meta{{3, 4}, DType::kFloat32, dev()};
  for (bool device_graphs : {true, false}) {
    GraphOptions opts;
    opts.device_graphs = device_graphs;
    absl::StatusOr<Graph> g = Graph::Capture({meta, meta}, fn, opts);
    ASSERT_TRUE(g.ok()) << g.status();
    std::mt19937 rng(21);
    const std::string how = device_graphs ? " (device graphs)" : " (plain plan)";
    for (int r = 0; r < 4; ++r) {
      // Two separate inputs, the second a view at an offset.
      Pair a = MakeInput(rng, {3, 4}, false, dev());
      Pair b = MakeInput(rng, {3, 4}, true, dev());
      absl::StatusOr<std::vector<Tensor>> got = g->Run({a.dev, b.dev});
      ASSERT_TRUE(got.ok()) << got.status();
      std::vector<Tensor> want = fn({a.cpu, b.cpu});
      ExpectNear((*got)[0], want[0], "view input, output 0" + how);
      ExpectNear((*got)[1], want[1], "view input, output 1" + how);
      ExpectNear(a.dev, a.cpu, "view input, the written input" + how);
      // One tensor for both inputs: the write through in[0] is seen by in[1].
      Pair c = MakeInput(rng, {3, 4}, r % 2 == 1, dev());
      got = g->Run({c.dev, c.dev});
      ASSERT_TRUE(got.ok()) << got.status();
      want = fn({c.cpu, c.cpu});
      ExpectNear((*got)[0], want[0], "aliased inputs, output 0" + how);
      ExpectNear((*got)[1], want[1], "aliased inputs, output 1" + how);
      ExpectNear(c.dev, c.cpu, "aliased inputs, the written input" + how);
    }
    const GraphStats st = g->GetStats();
    EXPECT_EQ(st.runs, 8);
    if (!device_graphs || !GetParam().device_graphs) EXPECT_EQ(st.device_graph_runs, 0) << how;
  }
  ASSERT_TRUE(Sync().ok());
}

// The device-graph path replays compact, distinct inputs: many runs equal
// eager, and the backend's replays are counted where it has them.
TEST_P(BackendConformance, GraphReplayedManyTimesEqualsEager) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor h = ops::Tanh(ops::MatMul(in[0], in[1]));
    return std::vector<Tensor>{ops::Softmax(h, 1), ops::Max(h, 0)};
  };
  const TensorMeta ma{{4, 6}, DType::kFloat32, dev()}, mb{{6, 5}, DType::kFloat32, dev()};
  absl::StatusOr<Graph> g = Graph::Capture({ma, mb}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  std::mt19937 rng(22);
  for (int r = 0; r < 6; ++r) {
    Pair a = MakeInput(rng, {4, 6}, false, dev());
    Pair b = MakeInput(rng, {6, 5}, false, dev());
    absl::StatusOr<std::vector<Tensor>> got = g->Run({a.dev, b.dev});
    ASSERT_TRUE(got.ok()) << got.status();
    std::vector<Tensor> want = fn({a.cpu, b.cpu});
    ExpectNear((*got)[0], want[0], "Softmax output, run " + std::to_string(r), 1e-5);
    ExpectNear((*got)[1], want[1], "Max output, run " + std::to_string(r), 1e-5);
  }
  const GraphStats st = g->GetStats();
  EXPECT_EQ(st.runs, 6);
  if (GetParam().device_graphs) {
    EXPECT_GT(st.device_graph_runs, 0) << "fallbacks: " << st.device_graph_fallbacks;
  } else {
    EXPECT_EQ(st.device_graph_runs, 0);
  }
  ASSERT_TRUE(Sync().ok());
}

// Reductions and transposes past the kernels' limits (grid rows > 65535,
// several chunks, NaN in the last chunk), float32 and float64, vs the CPU.
TEST_P(BackendConformance, ReductionsAndTransposesPastGridAndChunkLimits) {
  std::mt19937 rng(23);
  const int64_t n = (int64_t{1} << 21) + 77;
  std::vector<float> v = RandomFloats(rng, n, -1, 1);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    Tensor c = ops::Cast(FromVector<float>(v, {n}), dt);
    Tensor d = c.To(dev());
    ExpectNear(ops::Sum(d), ops::Sum(c), "Sum of 2^21+77", 1e-3);
    ExpectNear(ops::Mean(d), ops::Mean(c), "Mean of 2^21+77", 1e-3);
    ExpectNear(ops::Max(d), ops::Max(c), "Max of 2^21+77");
    Tensor rows_c = c.Slice(0, 65537 * 3).Reshape({65537, 3});
    Tensor rows_d = d.Slice(0, 65537 * 3).Reshape({65537, 3});
    ExpectNear(ops::Sum(rows_d, 1), ops::Sum(rows_c, 1), "Sum over 65537 rows", 1e-5);
    ExpectNear(ops::Max(rows_d, 0), ops::Max(rows_c, 0), "Max down 65537 rows");
    ExpectNear(ops::Sum(rows_d, 0), ops::Sum(rows_c, 0), "Sum down 65537 rows", 1e-3);
  }
  std::vector<float> nan_last = v;
  nan_last.back() = NAN;
  Tensor nc = FromVector<float>(nan_last, {n});
  ExpectNear(ops::Max(nc.To(dev())), ops::Max(nc), "Max with NaN in the last chunk");
  for (Shape s : {Shape{33, 65}, Shape{(int64_t{1} << 20) + 64, 2}}) {
    std::vector<float> t = RandomFloats(rng, s.numel(), -1, 1);
    Tensor tc = FromVector<float>(t, s);
    ExpectNear(ops::Transpose(tc.To(dev())), ops::Transpose(tc),
               "Transpose " + std::to_string(s[0]) + "x" + std::to_string(s[1]));
  }
  ASSERT_TRUE(Sync().ok());
}

#ifdef EAGERVM_CONFORMANCE_DLPACK
// Export then import: the same memory (a write through one is seen by the
// other), the device kept, and a misaligned import refused with the caller
// keeping ownership.
TEST_P(BackendConformance, DLPackRoundTripSharesMemoryAndRefusesMisalignment) {
  Tensor x = FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4}, dev());
  absl::StatusOr<DLManagedTensor*> m = ToDLPack(x);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->dl_tensor.device.device_type, dev().is_cpu() ? kDLCPU : kDLCUDA);
  Tensor y = FromDLPack(*m);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y.device(), dev());
  EXPECT_EQ(y.shape(), (Shape{2, 4}));
  ASSERT_TRUE(ops::FillInplace(y.Slice(1, 2), -1.0).ok());
  // The VM does not know that x and y share memory (the DLPack contract):
  // the caller orders the write through y before reads of x.
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(Floats(x), (std::vector<float>{1, 2, 3, 4, -1, -1, -1, -1}));
  // A strided view exports its strides; imported it reads the same values.
  Tensor t = x.T();
  absl::StatusOr<DLManagedTensor*> mt = ToDLPack(t);
  ASSERT_TRUE(mt.ok()) << mt.status();
  Tensor ty = FromDLPack(*mt);
  ASSERT_TRUE(ty.ok()) << ty.status();
  ExpectNear(ty, t.To(Device::Cpu()), "DLPack strided round trip");
  // Misaligned: data + byte_offset not a multiple of 4 for float32.
  absl::StatusOr<DLManagedTensor*> mm = ToDLPack(x);
  ASSERT_TRUE(mm.ok()) << mm.status();
  (*mm)->dl_tensor.byte_offset += 2;
  (*mm)->dl_tensor.shape[1] = 3;
  Tensor bad = FromDLPack(*mm);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  if (!bad.ok()) (*mm)->deleter(*mm);  // refused: still ours
  ASSERT_TRUE(Sync().ok());
}
#endif

// Collectives, where the backend has a transport (MPI for CPU tensors, NCCL
// for CUDA ones): every rank's result equals a host reference. A backend with
// none (the fake device) refuses them with an error on every rank, never an
// OK result. Runs under mpirun (ctest backend_conformance_mpi_np2); skipped
// in a single process.
TEST_P(BackendConformance, CollectivesEqualAHostReferenceOrFailOnEveryRank) {
  if (!IsDistributed()) GTEST_SKIP() << "not launched under mpirun (backend_conformance_mpi_np2)";
  const int rank = Rank(), world = WorldSize();
  auto input = [](int r) {
    return std::vector<float>{float(r + 1), float(2 * r), float(-r), 0.5f};
  };
  Tensor x = FromVector(input(rank), Shape{4}).To(dev());
  Tensor sum = ops::AllReduce(x, ReduceOp::kSum);
  Tensor max = ops::AllReduce(x, ReduceOp::kMax);
  const int root = world - 1;
  Tensor bcast = ops::Broadcast(x, root);
  Tensor gathered = ops::AllGather(x);
  std::vector<float> want_sum(4, 0.0f), want_max = input(0), want_gather;
  for (int r = 0; r < world; ++r) {
    const std::vector<float> v = input(r);
    for (int i = 0; i < 4; ++i) {
      want_sum[i] += v[i];
      want_max[i] = std::max(want_max[i], v[i]);
    }
    want_gather.insert(want_gather.end(), v.begin(), v.end());
  }
  const std::pair<Tensor*, std::vector<float>> cases[] = {
      {&sum, want_sum}, {&max, want_max}, {&bcast, input(root)}, {&gathered, want_gather}};
  int failed = 0;
  for (const auto& [t, want] : cases) {
    absl::StatusOr<std::vector<float>> got = t->To(Device::Cpu()).ToVector<float>();
    if (!got.ok()) {
      ++failed;
      continue;
    }
    EXPECT_EQ(*got, want) << GetParam().name << " rank " << rank;
  }
  (void)Sync();
  // A backend either has a transport (every collective right) or none
  // (every one an error); a mix is a bug.
  EXPECT_TRUE(failed == 0 || failed == 4) << failed << " of 4 collectives failed on rank " << rank;
  if (GetParam().device.type() == DeviceType::kCPU) EXPECT_EQ(failed, 0);
}

}  // namespace eagervm::conformance
