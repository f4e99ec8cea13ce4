// Cached inference for custom ops (issue 15, item 3): a thread runs an op's
// InferFn once per distinct (input metas, attrs), and every answer it gets
// from the cache is the one the InferFn would give; and ops::Call's
// TensorList result (item 6).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::Values;

std::atomic<int> tile_infers{0};
std::atomic<int> uncached_infers{0};
std::atomic<int> failing_infers{0};

// Tile(x; n, scale) -> y: y is x repeated attrs["n"] times (so the output
// shape depends on an attr), each element times attrs["scale"] (default 1).
absl::StatusOr<std::vector<TensorMeta>> TileInfer(const std::vector<TensorMeta>& in,
                                                  const Attrs& attrs) {
  tile_infers.fetch_add(1);
  if (in.size() != 1 || in[0].shape.rank() != 1) return absl::InvalidArgumentError("1-D input");
  auto it = attrs.find("n");
  if (it == attrs.end()) return absl::InvalidArgumentError("needs attr 'n'");
  const int64_t n = std::get<int64_t>(it->second);
  if (n < 1) return absl::InvalidArgumentError("n < 1");
  return std::vector<TensorMeta>{{Shape{in[0].shape[0] * n}, in[0].dtype, in[0].device}};
}

absl::Status TileKernel(KernelContext& ctx) {
  const float* x = ctx.input<float>(0);
  float* y = ctx.output<float>(0);
  if (x == nullptr || y == nullptr) return absl::InvalidArgumentError("float32 only");
  auto it = ctx.attrs().find("scale");
  const double scale = it == ctx.attrs().end() ? 1.0 : std::get<double>(it->second);
  const int64_t m = ctx.input_meta(0).shape.numel();
  for (int64_t i = 0; i < ctx.output_meta(0).shape.numel(); ++i) {
    y[i] = static_cast<float>(x[i % m] * scale);
  }
  return absl::OkStatus();
}

void RegisterOps() {
  static const bool once = [] {
    EXPECT_TRUE(RegisterOp("cache.Tile", TileInfer).ok());
    EXPECT_TRUE(RegisterKernel("cache.Tile", DeviceType::kCPU, TileKernel).ok());
    OpOptions no_cache;
    no_cache.cache_inference = false;
    EXPECT_TRUE(RegisterOp(
                    "cache.Uncached",
                    [](const std::vector<TensorMeta>& in,
                       const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                      uncached_infers.fetch_add(1);
                      return std::vector<TensorMeta>{in[0]};
                    },
                    no_cache)
                    .ok());
    EXPECT_TRUE(RegisterKernel("cache.Uncached", DeviceType::kCPU, TileKernel).ok());
    EXPECT_TRUE(RegisterOp("cache.Failing",
                           [](const std::vector<TensorMeta>&,
                              const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
                             failing_infers.fetch_add(1);
                             return absl::InvalidArgumentError("never valid");
                           })
                    .ok());
    return true;
  }();
  (void)once;
}

std::vector<float> Tile(const Tensor& x, int64_t n, double scale = 1.0) {
  absl::StatusOr<TensorList> r = scale == 1.0
                                     ? ops::Call("cache.Tile", {x}, {{"n", n}})
                                     : ops::Call("cache.Tile", {x}, {{"n", n}, {"scale", scale}});
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(r->size(), 1u);
  return Values<float>((*r)[0]);
}

TEST(InferCache, RepeatedCallsInferOnce) {
  RegisterOps();
  Tensor x = Make<float>({1, 2}, {2});
  const int before = tile_infers.load();
  for (int i = 0; i < 100; ++i) {
    auto r = ops::Call("cache.Tile", {x}, {{"n", int64_t{3}}});
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ((*r)[0].shape(), Shape({6}));
  }
  EXPECT_EQ(tile_infers.load() - before, 1);
  EXPECT_EQ(Tile(x, 3), (std::vector<float>{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(tile_infers.load() - before, 1);
}

// Every part of the key matters: a call that differs from a cached one in an
// input's shape, dtype, or an attr's value (which changes the output shape)
// gets its own inference, and interleaving them never mixes answers up.
TEST(InferCache, EachPartOfTheKeyCounts) {
  RegisterOps();
  Tensor a = Make<float>({1, 2}, {2});
  Tensor b = Make<float>({5, 6, 7}, {3});
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(Tile(a, 2), (std::vector<float>{1, 2, 1, 2}));
    EXPECT_EQ(Tile(a, 1), (std::vector<float>{1, 2}));
    EXPECT_EQ(Tile(b, 2), (std::vector<float>{5, 6, 7, 5, 6, 7}));
    EXPECT_EQ(Tile(a, 2, 10.0), (std::vector<float>{10, 20, 10, 20}));
    EXPECT_EQ(Tile(a, 2, -1.0), (std::vector<float>{-1, -2, -1, -2}));
  }
  // A dtype the InferFn accepts but the kernel does not: inferred for int64
  // (its own entry), then the kernel's error at Sync.
  Tensor i = Make<int64_t>({1, 2}, {2});
  auto r = ops::Call("cache.Tile", {i}, {{"n", int64_t{2}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].dtype(), DType::kInt64);
  EXPECT_EQ((*r)[0].shape(), Shape({4}));
  EXPECT_FALSE(Sync().ok());
}

// More distinct calls than the cache has slots, cycled: evictions re-infer,
// and every answer is still right.
TEST(InferCache, MoreDistinctCallsThanSlotsStayCorrect) {
  RegisterOps();
  std::vector<Tensor> xs;
  for (int k = 1; k <= 40; ++k) xs.push_back(Make<float>(std::vector<float>(k, 1.0f), {k}));
  for (int round = 0; round < 3; ++round) {
    for (int k = 1; k <= 40; ++k) {
      const int64_t n = 1 + (k + round) % 3;
      auto r = ops::Call("cache.Tile", {xs[k - 1]}, {{"n", n}});
      ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_EQ((*r)[0].shape(), Shape({k * n})) << "k=" << k << " n=" << n;
    }
  }
  ASSERT_TRUE(Sync().ok());
}

// The kernel reads the cached call's attrs after the caller's map is gone
// and after the entry was evicted: the instruction keeps its own reference.
TEST(InferCache, AttrsOutliveTheCallerAndTheEntry) {
  RegisterOps();
  Tensor gate = Make<float>({0}, {1});
  std::atomic<bool> open{false};
  // A slow first op on the stream keeps the Tile calls queued behind it.
  static std::atomic<bool>* gate_flag = nullptr;
  gate_flag = &open;
  static const bool reg = [] {
    OpOptions o;
    o.mutated_inputs = {0};
    EXPECT_TRUE(RegisterOp(
                    "cache.Gate",
                    [](const std::vector<TensorMeta>&, const Attrs&) {
                      return absl::StatusOr<std::vector<TensorMeta>>(std::vector<TensorMeta>{});
                    },
                    o)
                    .ok());
    EXPECT_TRUE(RegisterKernel("cache.Gate", DeviceType::kCPU, [](KernelContext&) {
                  while (!gate_flag->load()) std::this_thread::yield();
                  return absl::OkStatus();
                }).ok());
    return true;
  }();
  (void)reg;
  ASSERT_TRUE(ops::Call("cache.Gate", {gate}).ok());
  Tensor x = Make<float>({1, 2}, {2});
  std::vector<Tensor> outs;
  {
    Attrs attrs{{"n", int64_t{2}}, {"scale", 3.0}};
    auto r = ops::Call("cache.Tile", {x}, attrs);
    ASSERT_TRUE(r.ok()) << r.status();
    outs.push_back((*r)[0]);
  }
  // Evict everything: 40 other calls.
  for (int k = 1; k <= 40; ++k) {
    Tensor y = Make<float>(std::vector<float>(k, 1.0f), {k});
    ASSERT_TRUE(ops::Call("cache.Tile", {y}, {{"n", int64_t{1}}, {"scale", 2.0}}).ok());
  }
  open.store(true);
  EXPECT_EQ(Values<float>(outs[0]), (std::vector<float>{3, 6, 3, 6}));
}

TEST(InferCache, AnOpMayOptOut) {
  RegisterOps();
  Tensor x = Make<float>({4}, {1});
  const int before = uncached_infers.load();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(ops::Call("cache.Uncached", {x}).ok());
  EXPECT_EQ(uncached_infers.load() - before, 10);
  ASSERT_TRUE(Sync().ok());
}

TEST(InferCache, ErrorsAreNotCached) {
  RegisterOps();
  Tensor x = Make<float>({4}, {1});
  const int before = failing_infers.load();
  for (int i = 0; i < 3; ++i) {
    auto r = ops::Call("cache.Failing", {x});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(std::string(r.status().message()).find("cache.Failing: never valid"),
              std::string::npos)
        << r.status();
  }
  EXPECT_EQ(failing_infers.load() - before, 3);
  // An attr the InferFn rejects, then a valid one: the rejection is not
  // remembered either.
  auto bad = ops::Call("cache.Tile", {x}, {{"n", int64_t{0}}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Tile(x, 2), (std::vector<float>{4, 4}));
}

// Each thread has its own cache (lookups share nothing, so take no lock):
// four threads each infer exactly once, and all get the right outputs (TSan
// checks that the lookups touch no shared state).
TEST(InferCache, ThreadsEachKeepTheirOwn) {
  RegisterOps();
  Tensor x = Make<float>({1, 2, 3}, {3});
  const int before = tile_infers.load();
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto r = ops::Call("cache.Tile", {x}, {{"n", int64_t{7}}});
        if (!r.ok() || (*r)[0].shape() != Shape({21})) wrong.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(tile_infers.load() - before, kThreads);
  ASSERT_TRUE(Sync().ok());
}

// The result is a TensorList; code written for the old std::vector result
// still compiles, by copy and by move.
TEST(InferCache, TensorListConvertsToVector) {
  RegisterOps();
  Tensor x = Make<float>({1, 2}, {2});
  absl::StatusOr<std::vector<Tensor>> v = ops::Call("cache.Tile", {x}, {{"n", int64_t{2}}});
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->size(), 1u);
  EXPECT_EQ(Values<float>((*v)[0]), (std::vector<float>{1, 2, 1, 2}));
  absl::StatusOr<TensorList> l = ops::Call("cache.Tile", {x}, {{"n", int64_t{1}}});
  ASSERT_TRUE(l.ok());
  const std::vector<Tensor> copy = *l;
  EXPECT_EQ(copy.size(), 1u);
  EXPECT_TRUE((*l)[0].defined());
  std::vector<Tensor> moved = *std::move(l);
  EXPECT_EQ(Values<float>(moved[0]), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace eagervm
