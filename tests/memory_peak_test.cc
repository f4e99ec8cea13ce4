// Memory is returned: 10,000 iterations that allocate and drop tensors keep
// the device's peak bytes in use a small multiple of one iteration's working
// set. Its own process, so the peak (a high-water mark) starts at zero.
#include <gtest/gtest.h>

#include <vector>

#include "eagervm/eagervm.h"
#include "memory_stats_util.h"

namespace eagervm {
namespace {

MemoryStats Cpu() { return testing::CpuMemoryStats(); }

// Without a sync per iteration the producer runs ahead of the VM; memory is
// still returned in stream order, so the peak stays a small multiple of one
// iteration's working set.
TEST(MemoryPeak, TenThousandIterationsKeepPeakBounded) {
  constexpr int64_t kN = 16384;  // 64 KiB per tensor
  constexpr int64_t kWorkingSet = 3 * kN * 4;
  Tensor acc = Full({kN}, 0.0f, DType::kFloat32);
  for (int i = 0; i < 10000; ++i) {
    Tensor a = Full({kN}, 1.0f, DType::kFloat32);
    Tensor b = ops::Add(a, a);
    ASSERT_TRUE(ops::AddInplace(acc, b).ok());
  }
  absl::StatusOr<std::vector<float>> v = acc.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->front(), 20000.0f);
  ASSERT_TRUE(Sync().ok());
  const MemoryStats m = Cpu();
  EXPECT_LE(m.peak_bytes_in_use, 8 * kWorkingSet) << VirtualMachine::Get().GetStats();
  EXPECT_EQ(m.bytes_in_use, kN * 4);  // acc
  EXPECT_LE(m.bytes_reserved, 4 << 20) << "one small segment per stream is enough";
}

}  // namespace
}  // namespace eagervm
