#include <gtest/gtest.h>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

TEST(Smoke, FullAddItem) {
  Tensor a = Full({2, 3}, 1.5f, DType::kFloat32);
  Tensor b = Full({2, 3}, 2.0f, DType::kFloat32);
  Tensor c = ops::Add(a, b);
  ASSERT_TRUE(c.ok()) << c.status();
  auto v = c.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  for (float x : *v) EXPECT_EQ(x, 3.5f);
  ASSERT_TRUE(ops::AddInplace(c, a).ok());
  ASSERT_TRUE(ops::MulScalarInplace(c, 2).ok());
  auto v2 = c.ToVector<float>();
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ((*v2)[0], 10.0f);
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
