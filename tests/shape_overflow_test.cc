// Shapes whose element count overflows (or exceeds Shape::kMaxNumel) are
// invalid: creation ops, views and ops whose inferred output would be too
// large return InvalidArgument instead of computing a wrapped size. Before,
// Full({2^32, 2^32}) passed validation and numel() overflowed (undefined
// behaviour; found while writing fuzz/validation_fuzzer.cc).
#include <gtest/gtest.h>

#include <cstdint>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

constexpr int64_t k2to31 = int64_t{1} << 31;
constexpr int64_t k2to32 = int64_t{1} << 32;

TEST(ShapeOverflow, IsValidBoundsTheElementCount) {
  EXPECT_TRUE((Shape{int64_t{1} << 30, 1 << 30}).IsValid());      // 2^60: the limit
  EXPECT_FALSE((Shape{int64_t{1} << 30, 1 << 30, 2}).IsValid());  // 2^61
  EXPECT_FALSE((Shape{k2to32, k2to32}).IsValid());                // 2^64 wraps to 0
  EXPECT_FALSE((Shape{INT64_MAX, 2}).IsValid());
  EXPECT_TRUE((Shape{INT64_MAX, 0}).IsValid());  // no elements
  EXPECT_TRUE((Shape{0, INT64_MAX, INT64_MAX}).IsValid());
  EXPECT_TRUE((Shape{k2to32, k2to32, 0}).IsValid());  // whatever the order
}

TEST(ShapeOverflow, CreationAndViewsReject) {
  for (Tensor t :
       {Full({k2to32, k2to32}, 1, DType::kFloat32), Empty({k2to32, k2to32, 4}, DType::kInt64),
        Full({4}, 1, DType::kFloat32).Reshape({k2to32, k2to32, 4})}) {
    EXPECT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  }
}

TEST(ShapeOverflow, OversizedInferredOutputsReject) {
  // Each input holds 2^31 elements of no storage yet (Empty queues nothing);
  // the broadcast and the product would hold 2^62.
  const Tensor col = Empty({k2to31, 1}, DType::kFloat32);
  const Tensor row = Empty({1, k2to31}, DType::kFloat32);
  for (Tensor t : {ops::Add(col, row), ops::MatMul(col, row)}) {
    EXPECT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  }
  EXPECT_TRUE(Sync().ok());
  // Still usable.
  absl::StatusOr<float> v = ops::Sum(Full({3}, 2, DType::kFloat32)).Item<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 6.0f);
}

}  // namespace
}  // namespace eagervm
