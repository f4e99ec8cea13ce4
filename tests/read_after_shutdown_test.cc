// Values computed before VirtualMachine::Shutdown() stay readable after it
// (issue 28): Shutdown drains every instruction and joins the VM threads, so
// a CPU storage holds its final bytes and a read needs no VM. Errors read as
// errors; a tensor nothing wrote says so; new work is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

TEST(ReadAfterShutdown, FinalValuesAndErrorsStayReadable) {
  Tensor x = Full({3}, 2.0f, DType::kFloat32);
  Tensor y = x * x + 1.0f;
  Tensor s = ops::Sum(y);
  Tensor never = Empty({2}, DType::kFloat32);
  Tensor bad = ops::Log(Full({1}, 1.0f, DType::kInt64));  // rejected at the call
  ASSERT_TRUE(VirtualMachine::Get().Shutdown().ok());

  absl::StatusOr<std::vector<float>> v = y.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::vector<float>(3, 5.0f));
  absl::StatusOr<float> item = s.Item<float>();
  ASSERT_TRUE(item.ok()) << item.status();
  EXPECT_EQ(*item, 15.0f);
  EXPECT_TRUE(y.Wait().ok());

  absl::StatusOr<std::vector<float>> n = never.ToVector<float>();
  EXPECT_EQ(n.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(n.status().message()).find("before the VM was shut down"),
            std::string::npos)
      << n.status();
  EXPECT_FALSE(bad.ok());

  // New work is refused, with a message that says why.
  Tensor z = y + y;
  EXPECT_FALSE(z.ok());
  EXPECT_NE(std::string(z.status().message()).find("shut down"), std::string::npos) << z.status();
}

}  // namespace
}  // namespace eagervm
