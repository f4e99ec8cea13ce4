// Every bad-input case returns the documented error, queues nothing, and
// leaves the VM usable.
#include <gtest/gtest.h>

#include <functional>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::QueueProbe;
using testing::Values;

struct Case {
  const char* name;
  std::function<absl::Status()> call;
  absl::StatusCode code;
  const char* message;  // substring of the status message
};

absl::Status S(const Tensor& t) { return t.status(); }

class OpErrorsTest : public ::testing::Test {
 protected:
  Tensor f23 = Full({2, 3}, 1.0f, DType::kFloat32);
  Tensor f3 = Full({3}, 1.0f, DType::kFloat32);
  Tensor f4 = Full({4}, 1.0f, DType::kFloat32);
  Tensor f45 = Full({4, 5}, 1.0f, DType::kFloat32);
  Tensor i3 = Full({3}, 1, DType::kInt32);
  Tensor b3 = Full({3}, true, DType::kBool);
  Tensor f0 = Zeros({0, 3}, DType::kFloat32);
  Tensor f234 = Zeros({2, 3, 4}, DType::kFloat32);
  Tensor scalar = Full({}, 2.0, DType::kFloat64);

  void SetUp() override { ASSERT_TRUE(Sync().ok()); }
  void TearDown() override {
    EXPECT_TRUE(Sync().ok());
    EXPECT_EQ(Values<float>(f3 + f3), (std::vector<float>{2, 2, 2}));  // still usable
  }

  void Expect(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
      QueueProbe probe;
      const absl::Status s = c.call();
      EXPECT_EQ(s.code(), c.code) << c.name << ": " << s;
      EXPECT_NE(s.message().find(c.message), std::string::npos)
          << c.name << ": got '" << s.message() << "', want it to contain '" << c.message << "'";
      EXPECT_EQ(probe.Count(), 0u) << c.name << " queued work";
    }
  }
};

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr auto kPrecondition = absl::StatusCode::kFailedPrecondition;

TEST_F(OpErrorsTest, Binary) {
  Tensor undefined;
  Tensor moved = f3;
  Tensor taken = std::move(moved);
  Expect({
      {"broadcast", [&] { return S(ops::Add(f23, f4)); }, kInvalid,
       "Add: cannot broadcast [2,3] with [4]"},
      {"broadcast sub", [&] { return S(f45 - f23); }, kInvalid,
       "Sub: cannot broadcast [4,5] with [2,3]"},
      {"dtypes promoted, shapes checked first", [&] { return S(ops::Mul(f4, i3)); }, kInvalid,
       "Mul: cannot broadcast [4] with [3]"},
      {"bool", [&] { return S(ops::Div(b3, b3)); }, kInvalid,
       "Div: not defined for bool tensors ([3])"},
      {"undefined", [&] { return S(ops::Maximum(undefined, f3)); }, kPrecondition,
       "Maximum: argument 'a' is an undefined tensor"},
      {"moved-from", [&] { return S(ops::Add(f3, moved)); }, kPrecondition,
       "Add: argument 'b' is an undefined tensor (default-constructed or moved-from)"},
      {"error input", [&] { return S(ops::Relu(ops::Add(f23, f4))); }, kInvalid,
       "Add: cannot broadcast [2,3] with [4]"},
      {"inplace broadcast", [&] { return ops::AddInplace(f3, f23); }, kInvalid,
       "AddInplace: cannot broadcast other [2,3] into self [3]"},
      {"inplace not broadcastable", [&] { return ops::AddInplace(f23, f4); }, kInvalid,
       "AddInplace: cannot broadcast other [4] into self [2,3]"},
      {"inplace dtype", [&] { return ops::AddInplace(f3, i3); }, kInvalid,
       "AddInplace: dtype mismatch"},
  });
}

TEST_F(OpErrorsTest, PlusEqualsTurnsTheTargetIntoAnErrorTensor) {
  Tensor a = Full({3}, 1.0f, DType::kFloat32);
  Tensor keep = a;  // else replacing `a` releases its storage (queued, legitimately)
  QueueProbe probe;
  a += f23;
  EXPECT_EQ(probe.Count(), 0u);
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("AddInplace: cannot broadcast"), std::string::npos);
}

TEST_F(OpErrorsTest, UnaryAndScalar) {
  Expect({
      {"exp int", [&] { return S(ops::Exp(i3)); }, kInvalid,
       "Exp: needs a floating-point tensor, got int32 [3]; use Cast"},
      {"sqrt bool", [&] { return S(ops::Sqrt(b3)); }, kInvalid,
       "Sqrt: needs a floating-point tensor"},
      {"relu bool", [&] { return S(ops::Relu(b3)); }, kInvalid, "Relu: not defined for bool"},
      {"neg bool", [&] { return S(-b3); }, kInvalid, "Neg: not defined for bool"},
      {"scalar fraction", [&] { return S(ops::AddScalar(i3, 2.5)); }, kInvalid,
       "AddScalar: scalar 2.5 is not exactly representable as int32"},
      {"scalar range", [&] { return S(i3 * int64_t{3000000000}); }, kInvalid,
       "MulScalar: scalar 3000000000 is not exactly representable as int32"},
      {"scalar nan", [&] { return S(i3 - std::nan("")); }, kInvalid, "SubScalar: scalar nan"},
      {"int div zero", [&] { return S(i3 / 0); }, kInvalid, "DivScalar: integer division by zero"},
      {"scalar bool", [&] { return S(b3 + 1); }, kInvalid, "AddScalar: not defined for bool"},
      {"mul inplace", [&] { return ops::MulScalarInplace(i3, 0.5); }, kInvalid,
       "MulScalarInplace: scalar 0.5 is not exactly representable as int32"},
      {"fill bool", [&] { return ops::FillInplace(b3, 2); }, kInvalid,
       "FillInplace: scalar 2 is not exactly representable as bool"},
      {"full", [&] { return S(Full({2}, 1.5, DType::kInt64)); }, kInvalid,
       "Full: scalar 1.5 is not exactly representable as int64"},
  });
}

TEST_F(OpErrorsTest, LinalgAndReductions) {
  Expect({
      {"matmul rank", [&] { return S(ops::MatMul(f3, f45)); }, kInvalid,
       "MatMul: expects 2-D tensors, got a [3] and b [4,5]"},
      {"matmul inner", [&] { return S(ops::MatMul(f23, f45)); }, kInvalid,
       "MatMul: inner dimensions do not match: a [2,3] @ b [4,5] (3 != 4)"},
      {"matmul dtype",
       [&] {
         return S(ops::MatMul(f23, i3.Reshape({3, 1})));
       },
       kInvalid, "MatMul: dtype mismatch"},
      {"matmul bool",
       [&] {
         return S(ops::MatMul(b3.Reshape({1, 3}), b3.Reshape({3, 1})));
       },
       kInvalid, "MatMul: not defined for bool"},
      {"transpose rank", [&] { return S(ops::Transpose(f234)); }, kInvalid,
       "Transpose: expects a 2-D tensor, got [2,3,4]"},
      {"axis high", [&] { return S(ops::Sum(f23, 2)); }, kInvalid,
       "Sum: axis 2 is out of range for [2,3] (rank 2, valid axes [-2, 2))"},
      {"axis low", [&] { return S(ops::Max(f23, -3, true)); }, kInvalid,
       "Max: axis -3 is out of range"},
      {"axis scalar", [&] { return S(ops::Mean(scalar, 0)); }, kInvalid,
       "Mean: axis 0 given for a scalar (shape [])"},
      {"mean int", [&] { return S(ops::Mean(i3)); }, kInvalid,
       "Mean: needs a floating-point tensor"},
      {"sum bool", [&] { return S(ops::Sum(b3)); }, kInvalid, "Sum: not defined for bool"},
      {"max empty", [&] { return S(ops::Max(f0)); }, kInvalid, "Max: the tensor [0,3] is empty"},
      {"max empty axis", [&] { return S(ops::Max(f0, -2)); }, kInvalid,
       "Max: axis -2 of [0,3] has size 0"},
  });
}

TEST_F(OpErrorsTest, CreationDevicesAndStreams) {
  Expect({
      {"random int", [&] { return S(RandomNormal({2}, DType::kInt32, Device::Cpu(), 1)); },
       kInvalid, "RandomNormal: needs float32 or float64, got int32"},
      {"random shape",
       [&] {
         return S(RandomNormal({2, -1}, DType::kFloat32, Device::Cpu(), 1));
       },
       kInvalid, "RandomNormal: invalid shape [2,-1]"},
      {"cast error input", [&] { return S(ops::Cast(ops::Add(f23, f4), DType::kInt32)); }, kInvalid,
       "Add: cannot broadcast"},
      {"unknown op", [&] { return ops::Call("NoSuchOp", {f3}).status(); },
       absl::StatusCode::kNotFound, "ops::Call: unknown op 'NoSuchOp'"},
      {"builtin via Call",
       [&] {
         return ops::Call("Add", {f3, f3}).status();
       },
       kInvalid, "'Add' is a built-in op; call it through eagervm::ops::Add"},
  });
  {
    StreamScope scope(Stream(Device::Cpu(), 1000));
    QueueProbe probe;
    Tensor t = f3 + f3;
    EXPECT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find("Add: "), std::string::npos) << t.status();
    EXPECT_EQ(probe.Count(), 0u);
  }
  if (CudaDeviceCount() == 0) {
    QueueProbe probe;
    Tensor t = Full({2}, 1.0f, DType::kFloat32, Device::Cuda(0));
    EXPECT_FALSE(t.ok());
    EXPECT_EQ(probe.Count(), 0u);
  }
}

}  // namespace
}  // namespace eagervm
