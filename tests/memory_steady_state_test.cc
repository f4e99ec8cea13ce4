// Memory through the VM with default options: a steady-state loop is served
// from the cache, dropped tensors are returned, and EmptyCache gives it back.
#include <gtest/gtest.h>

#include <vector>

#include "eagervm/eagervm.h"
#include "memory_stats_util.h"

namespace eagervm {
namespace {

MemoryStats Cpu() { return testing::CpuMemoryStats(); }

// One training-like step with the same shapes every time; reads its result.
float Step(int64_t n) {
  Tensor x = Full({n}, 1.0f, DType::kFloat32);
  Tensor w = Full({n}, 2.0f, DType::kFloat32);
  Tensor y = ops::Add(x, w);
  EXPECT_TRUE(ops::AddInplace(y, x).ok());
  Tensor z = ops::Add(y, y);
  absl::StatusOr<std::vector<float>> v = z.ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? v->back() : -1;
}

TEST(MemorySteadyState, NoSystemAllocationsAfterTheFirstIteration) {
  for (int64_t n :
       {int64_t{100}, int64_t{300000}, int64_t{4000000}}) {  // small, medium, large pools
    ASSERT_EQ(Step(n), 8.0f);
    ASSERT_TRUE(Sync().ok());
    const MemoryStats first = Cpu();
    for (int i = 0; i < 50; ++i) ASSERT_EQ(Step(n), 8.0f);
    ASSERT_TRUE(Sync().ok());
    const MemoryStats after = Cpu();
    EXPECT_EQ(after.system_allocs, first.system_allocs)
        << "n=" << n << " " << VirtualMachine::Get().GetStats();
    EXPECT_GE(after.cache_hits - first.cache_hits, 50 * 4) << n;  // x, w, y, z each iteration
    EXPECT_EQ(after.bytes_in_use, 0) << n;
  }
}

TEST(MemorySteadyState, EmptyCacheReturnsCachedMemory) {
  {
    Tensor big = Full({int64_t{3} << 20}, 1.0f, DType::kFloat32);  // 12 MiB
    ASSERT_TRUE(big.Wait().ok());
  }
  ASSERT_TRUE(Sync().ok());
  EXPECT_GE(Cpu().bytes_reserved, int64_t{12} << 20);
  ASSERT_TRUE(VirtualMachine::Get().EmptyCache().ok());
  const MemoryStats m = Cpu();
  EXPECT_EQ(m.bytes_in_use, 0);
  EXPECT_EQ(m.bytes_reserved, 0);
}

}  // namespace
}  // namespace eagervm
