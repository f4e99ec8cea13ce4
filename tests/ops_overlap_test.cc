// Ops that write one view while reading another of the same storage
// (AddInplace, CopyInto): every device reads the inputs as they were before
// the op (ops/overlap.h), so the result is independent of the kernel's
// iteration order. On the CPU a forward loop would otherwise see its own
// writes (a running sum); on a GPU the order is undefined.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "eagervm/eagervm.h"
#include "ops/overlap.h"

namespace eagervm {
namespace {

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

std::vector<float> Values(const Tensor& t) {
  absl::StatusOr<std::vector<float>> v = t.ToVector<float>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<float>{};
}

TEST(OpsOverlap, AddInplaceReadsTheShiftedInputBeforeWriting) {
  const int n = 64;
  std::vector<float> v = Iota(n);
  Tensor x = FromVector<float>(v, {n});
  ASSERT_TRUE(ops::AddInplace(x.Slice(1, n), x.Slice(0, n - 1)).ok());
  std::vector<float> want = v;
  for (int i = 1; i < n; ++i) want[i] = v[i] + v[i - 1];  // not a running sum
  EXPECT_EQ(Values(x), want);
}

TEST(OpsOverlap, AddInplaceOfABroadcastRowOfItself) {
  // x += x[0:1]: every row adds the original first row, the first included.
  std::vector<float> v = Iota(12);
  Tensor x = FromVector<float>(v, {3, 4});
  ASSERT_TRUE(ops::AddInplace(x, x.Slice(0, 1)).ok());
  std::vector<float> want = v;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) want[r * 4 + c] = v[r * 4 + c] + v[c];
  }
  EXPECT_EQ(Values(x), want);
}

TEST(OpsOverlap, CopyIntoOverlappingViewsBothWays) {
  const int n = 33;
  std::vector<float> v = Iota(n);
  Tensor x = FromVector<float>(v, {n});
  ASSERT_TRUE(ops::CopyInto(x.Slice(0, n - 1), x.Slice(1, n)).ok());
  std::vector<float> want = v;
  for (int i = 0; i + 1 < n; ++i) want[i] = v[i + 1];
  EXPECT_EQ(Values(x), want);

  Tensor y = FromVector<float>(v, {n});
  ASSERT_TRUE(ops::CopyInto(y.Slice(1, n), y.Slice(0, n - 1)).ok());
  want = v;
  for (int i = 1; i < n; ++i) want[i] = v[i - 1];
  EXPECT_EQ(Values(y), want);
}

TEST(OpsOverlap, ElementForElementNeedsNoStaging) {
  std::vector<float> v = Iota(8);
  Tensor x = FromVector<float>(v, {2, 4});
  EXPECT_FALSE(internal::OverlapsOtherThanElementwise(x, x));
  EXPECT_FALSE(internal::OverlapsOtherThanElementwise(x.Slice(0, 1), x.Slice(1, 2)));
  EXPECT_TRUE(internal::OverlapsOtherThanElementwise(x, x.Slice(0, 1)));
  EXPECT_TRUE(internal::OverlapsOtherThanElementwise(x.Reshape({8}).Slice(1, 5),
                                                     x.Reshape({8}).Slice(0, 4)));
  // Same bytes, other shape: {8} vs {2, 4} broadcasts nothing but is not
  // element for element in the op's indexing.
  EXPECT_TRUE(internal::OverlapsOtherThanElementwise(x.Reshape({8}), x.Slice(0, 1).Reshape({4})));
  ASSERT_TRUE(ops::AddInplace(x, x).ok());
  std::vector<float> want = v;
  for (float& f : want) f *= 2;
  EXPECT_EQ(Values(x), want);
  Tensor other = FromVector<float>(v, {2, 4});
  EXPECT_FALSE(internal::OverlapsOtherThanElementwise(x, other));
}

TEST(OpsOverlap, WorksOnAStorageWrittenByEarlierQueuedOps) {
  // The staging copy is ordered after the queued writes of the input.
  const int n = 1000;
  Tensor x = Zeros({n}, DType::kFloat32);
  for (int k = 0; k < 5; ++k)
    ASSERT_TRUE(ops::AddInplace(x, Full({n}, 1.0f, DType::kFloat32)).ok());
  ASSERT_TRUE(ops::AddInplace(x.Slice(1, n), x.Slice(0, n - 1)).ok());
  std::vector<float> got = Values(x);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  EXPECT_EQ(got[0], 5.0f);
  for (int i = 1; i < n; ++i) ASSERT_EQ(got[i], 10.0f) << "at " << i;
}

}  // namespace
}  // namespace eagervm
