// Strict dtypes (VmOptions::strict_dtypes, EAGERVM_STRICT_DTYPES=1): a binary
// op on two dtypes is InvalidArgument naming the op and both dtypes, at the
// call, with nothing queued; calls on one dtype work as always.
#include <gtest/gtest.h>

#include <string>

#include "configured_vm.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

const auto* const kEnv = ::testing::AddGlobalTestEnvironment(
    new testing::ConfiguredVm([](VmOptions& o) { o.strict_dtypes = true; }));

void ExpectRefused(const Tensor& t, const std::string& op, const std::string& a,
                   const std::string& b) {
  ASSERT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  const std::string m(t.status().message());
  EXPECT_EQ(m.substr(0, op.size() + 1), op + ":") << m;
  EXPECT_NE(m.find(a), std::string::npos) << m;
  EXPECT_NE(m.find(b), std::string::npos) << m;
  EXPECT_NE(m.find("strict"), std::string::npos) << m;
}

TEST(StrictDTypes, ImplicitPromotionIsRefused) {
  EXPECT_TRUE(VirtualMachine::Get().options().strict_dtypes);
  Tensor i = FromVector<int32_t>({1, 2}, {2});
  Tensor f = FromVector<float>({1, 2}, {2});
  Tensor h = Full({2}, 1, DType::kFloat16);
  Tensor b = Full({2}, 1, DType::kBFloat16);
  Tensor cond = FromVector<bool>({true, false}, {2});
  ASSERT_TRUE(Wait({i, f, h, b, cond}).ok());
  const uint64_t before = VirtualMachine::Get().GetStats().received;
  ExpectRefused(ops::Add(i, f), "Add", "int32", "float32");
  ExpectRefused(i * f, "Mul", "int32", "float32");
  ExpectRefused(ops::Add(h, b), "Add", "float16", "bfloat16");
  ExpectRefused(ops::Eq(f, i), "Eq", "float32", "int32");
  ExpectRefused(ops::Minimum(h, f), "Minimum", "float16", "float32");
  ExpectRefused(ops::Where(cond, i, f), "Where", "int32", "float32");
  // Nothing was queued for the refused calls.
  EXPECT_EQ(VirtualMachine::Get().GetStats().received, before);
  // One dtype: as always; scalars keep the tensor's dtype.
  EXPECT_EQ(ops::Add(h, h).ToVector<Half>().value()[0], Half(2.0f));
  EXPECT_EQ((h * 0.5).dtype(), DType::kFloat16);
  EXPECT_EQ((i + 1).ToVector<int32_t>().value(), (std::vector<int32_t>{2, 3}));
}

}  // namespace
}  // namespace eagervm
