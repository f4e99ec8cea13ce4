// uint8, float16 and bfloat16: host conversions (round to nearest even,
// NaN and inf kept), Cast between every pair of dtypes, creation and reads,
// float32 accumulation of 16-bit compute, numpy promotion of binary ops, and
// clear refusals where a dtype has no kernel. Strict mode:
// dtypes_strict_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "eagervm/autograd.h"
#include "eagervm/eagervm.h"
#include "ops/half_convert.h"

namespace eagervm {
namespace {

constexpr DType kAll[] = {DType::kBool,    DType::kUInt8,    DType::kInt32,   DType::kInt64,
                          DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};

std::vector<double> AsDoubles(const Tensor& t) {
  absl::StatusOr<std::vector<double>> v = ops::Cast(t, DType::kFloat64).ToVector<double>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::vector<double>{};
}

TEST(Half, RoundsToNearestEvenAndKeepsSpecials) {
  EXPECT_EQ(Half(1.0f).bits, 0x3c00);
  EXPECT_EQ(Half(-2.0f).bits, 0xc000);
  EXPECT_EQ(Half(65504.0f).bits, 0x7bff);                 // the largest finite
  EXPECT_EQ(Half(65519.0f).bits, 0x7bff);                 // below the halfway point
  EXPECT_EQ(Half(65520.0f).bits, 0x7c00);                 // halfway: even is inf
  EXPECT_EQ(Half(1.0f + 0x1p-11f).bits, 0x3c00);          // tie: down to even
  EXPECT_EQ(Half(1.0f + 3 * 0x1p-11f).bits, 0x3c02);      // tie: up to even
  EXPECT_EQ(Half(1.0 + 0x1p-11 + 0x1p-40).bits, 0x3c01);  // above the tie: no double rounding
  EXPECT_EQ(Half(0x1p-24f).bits, 0x0001);                 // the smallest subnormal
  EXPECT_EQ(Half(0x1p-25f).bits, 0x0000);                 // tie: to even (zero)
  EXPECT_EQ(Half(0x1.8p-25f).bits, 0x0001);               // above the tie
  EXPECT_EQ(Half(-0.0f).bits, 0x8000);
  EXPECT_EQ(Half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_EQ(Half(-std::numeric_limits<double>::infinity()).bits, 0xfc00);
  const Half nan(-std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(nan.ToFloat()));
  EXPECT_TRUE(std::signbit(nan.ToFloat()));
  EXPECT_EQ(Half::FromBits(0x0001).ToFloat(), 0x1p-24f);
  EXPECT_EQ(Half::FromBits(0x7bff).ToFloat(), 65504.0f);
  for (uint32_t b = 0; b < 0x10000; ++b) {  // every finite half survives float and back
    const Half h = Half::FromBits(static_cast<uint16_t>(b));
    if (std::isnan(h.ToFloat())) continue;
    ASSERT_EQ(Half(h.ToFloat()).bits, h.bits) << b;
  }
}

// The kernels' fast float -> float16 (no double) agrees with Half(float).
TEST(Half, FastConversionMatchesTheReference) {
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 7) {
    const uint32_t bits = static_cast<uint32_t>(b);
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    const uint16_t fast = internal::HalfBitsFromFloat(f), ref = Half(f).bits;
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(Half::FromBits(fast).ToFloat())) << bits;
      ASSERT_EQ(fast & 0x8000, ref & 0x8000) << bits;
    } else {
      ASSERT_EQ(fast, ref) << std::hex << bits;
    }
  }
}

TEST(BFloat16, RoundsToNearestEvenAndKeepsSpecials) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16(1.0f + 0x1p-8f).bits, 0x3f80);          // tie: down to even
  EXPECT_EQ(BFloat16(1.0f + 3 * 0x1p-8f).bits, 0x3f82);      // tie: up to even
  EXPECT_EQ(BFloat16(1.0 + 0x1p-8 + 0x1p-40).bits, 0x3f81);  // above the tie (from double)
  EXPECT_EQ(BFloat16(-(1.0 + 0x1p-8 + 0x1p-40)).bits, 0xbf81);
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).bits, 0x7f80);  // rounds to inf
  EXPECT_EQ(BFloat16(-std::numeric_limits<float>::infinity()).bits, 0xff80);
  EXPECT_TRUE(std::isnan(BFloat16(std::numeric_limits<float>::quiet_NaN()).ToFloat()));
  EXPECT_TRUE(std::isnan(BFloat16(std::numeric_limits<double>::quiet_NaN()).ToFloat()));
  EXPECT_EQ(BFloat16::FromBits(0x4049).ToFloat(), 3.140625f);
}

TEST(DTypes, NamesSizesAndPrinting) {
  EXPECT_EQ(ToString(DType::kUInt8), "uint8");
  EXPECT_EQ(ToString(DType::kFloat16), "float16");
  EXPECT_EQ(ToString(DType::kBFloat16), "bfloat16");
  EXPECT_EQ(SizeOf(DType::kUInt8), 1u);
  EXPECT_EQ(SizeOf(DType::kFloat16), 2u);
  EXPECT_EQ(SizeOf(DType::kBFloat16), 2u);
  EXPECT_TRUE(IsFloating(DType::kFloat16));
  EXPECT_TRUE(IsFloating(DType::kBFloat16));
  EXPECT_FALSE(IsFloating(DType::kUInt8));
  std::ostringstream os;
  os << FromVector<uint8_t>({200, 7}, {2}) << " " << FromVector<Half>({Half(1.5f)}, {1}) << " "
     << Full({1}, 2.5, DType::kBFloat16);
  EXPECT_EQ(os.str(),
            "Tensor([2], uint8, cpu, [200, 7]) Tensor([1], float16, cpu, [1.5]) "
            "Tensor([1], bfloat16, cpu, [2.5])");
}

TEST(DTypes, CreationAndReads) {
  Tensor u = FromVector<uint8_t>({0, 255, 128}, {3});
  EXPECT_EQ(u.dtype(), DType::kUInt8);
  EXPECT_EQ(u.nbytes(), 3u);
  EXPECT_EQ(u.ToVector<uint8_t>().value(), (std::vector<uint8_t>{0, 255, 128}));
  Tensor h = Full({2, 2}, 0.1, DType::kFloat16);
  EXPECT_EQ(h.nbytes(), 8u);
  std::vector<Half> hv = h.ToVector<Half>().value();
  ASSERT_EQ(hv.size(), 4u);
  EXPECT_EQ(hv[0], Half(0.1));
  EXPECT_EQ(Full({}, 0.1, DType::kBFloat16).Item<BFloat16>().value(), BFloat16(0.1));
  EXPECT_EQ(Full({}, 255, DType::kUInt8).Item<uint8_t>().value(), 255);
  // Scalars must fit uint8; a wrong element type is refused.
  EXPECT_EQ(Full({1}, 256, DType::kUInt8).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Full({1}, -1, DType::kUInt8).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(h.ToVector<float>().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Zeros({0}, DType::kFloat16).ToVector<Half>().value().size(), 0u);
}

TEST(DTypes, CastBetweenEveryPair) {
  const std::vector<double> values = {0, 1, 2, 100};
  for (DType from : kAll) {
    for (DType to : kAll) {
      SCOPED_TRACE(std::string(ToString(from)) + " -> " + std::string(ToString(to)));
      Tensor x = ops::Cast(FromVector<double>(values, {4}), from);
      Tensor y = ops::Cast(x, to);
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_EQ(y.dtype(), to);
      const bool boolean = from == DType::kBool || to == DType::kBool;
      const std::vector<double> want = boolean ? std::vector<double>{0, 1, 1, 1} : values;
      EXPECT_EQ(AsDoubles(y), want);
    }
  }
}

TEST(DTypes, CastEdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor f = FromVector<float>({65504, 65520, 1e-8f, nan, inf, -inf, 1.0f + 0x1p-11f}, {7});
  std::vector<Half> h = ops::Cast(f, DType::kFloat16).ToVector<Half>().value();
  EXPECT_EQ(h[0].bits, 0x7bff);
  EXPECT_EQ(h[1].bits, 0x7c00);
  EXPECT_EQ(h[2].bits, 0x0000);  // below half the smallest subnormal
  EXPECT_TRUE(std::isnan(h[3].ToFloat()));
  EXPECT_EQ(h[4].bits, 0x7c00);
  EXPECT_EQ(h[5].bits, 0xfc00);
  EXPECT_EQ(h[6].bits, 0x3c00);
  std::vector<BFloat16> b = ops::Cast(f, DType::kBFloat16).ToVector<BFloat16>().value();
  EXPECT_EQ(b[0].ToFloat(), 65536.0f);
  EXPECT_TRUE(std::isnan(b[3].ToFloat()));
  EXPECT_EQ(b[4].bits, 0x7f80);
  // float64 -> float16 rounds once (via float32 it would round twice).
  std::vector<Half> d =
      ops::Cast(FromVector<double>({1.0 + 0x1p-11 + 0x1p-40}, {1}), DType::kFloat16)
          .ToVector<Half>()
          .value();
  EXPECT_EQ(d[0].bits, 0x3c01);
  // To integers: saturating, NaN -> 0; uint8 from floats saturates, from integers wraps.
  Tensor hs = ops::Cast(f, DType::kFloat16);
  EXPECT_EQ(ops::Cast(hs, DType::kInt32).ToVector<int32_t>().value(),
            (std::vector<int32_t>{65504, std::numeric_limits<int32_t>::max(), 0, 0,
                                  std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min(), 1}));
  EXPECT_EQ(ops::Cast(FromVector<float>({-5, 300, 3.7f, nan}, {4}), DType::kUInt8)
                .ToVector<uint8_t>()
                .value(),
            (std::vector<uint8_t>{0, 255, 3, 0}));
  EXPECT_EQ(
      ops::Cast(FromVector<int32_t>({300, -1}, {2}), DType::kUInt8).ToVector<uint8_t>().value(),
      (std::vector<uint8_t>{44, 255}));
  EXPECT_EQ(ops::Cast(hs, DType::kBool).ToVector<bool>().value(),
            (std::vector<bool>{true, true, false, true, true, true, true}));
}

// 16-bit compute accumulates in float32: a float16 running sum stalls at 2048.
TEST(DTypes, HalfComputeAccumulatesInFloat32) {
  for (DType d : {DType::kFloat16, DType::kBFloat16}) {
    SCOPED_TRACE(ToString(d));
    Tensor ones = Full({4096}, 1, d);
    EXPECT_EQ(AsDoubles(ops::Sum(ones)), std::vector<double>{4096});
    EXPECT_EQ(AsDoubles(ops::Mean(ones)), std::vector<double>{1});
    Tensor a = Full({1, 4096}, 1, d), b = Full({4096, 1}, 1, d);
    EXPECT_EQ(AsDoubles(ops::MatMul(a, b)), std::vector<double>{4096});
    Tensor sm = ops::Softmax(Full({2, 300}, 7, d), 1);
    ASSERT_TRUE(sm.ok()) << sm.status();
    EXPECT_EQ(sm.dtype(), d);
    EXPECT_NEAR(AsDoubles(ops::Sum(ops::Cast(sm, DType::kFloat32)))[0], 2.0, 0.05);
    Tensor x = FromVector<float>({1, 2, 3, 4}, {2, 2});
    Tensor ln = ops::LayerNorm(ops::Cast(x, d), Full({2}, 1, d), Full({2}, 0, d));
    std::vector<double> l = AsDoubles(ln);
    ASSERT_EQ(l.size(), 4u);
    EXPECT_NEAR(l[0], -1.0, 0.01);
    EXPECT_NEAR(l[3], 1.0, 0.01);
    EXPECT_EQ(ops::Argmax(ops::Cast(x, d), 1).ToVector<int64_t>().value(),
              (std::vector<int64_t>{1, 1}));
  }
  // One rounding per element: 1 + 2^-11 is a float16 tie that goes to 1.
  Tensor one = Full({1}, 1, DType::kFloat16), tiny = Full({1}, 0x1p-11, DType::kFloat16);
  EXPECT_EQ((one + tiny).ToVector<Half>().value()[0].bits, 0x3c00);
  EXPECT_EQ((one + tiny + tiny).ToVector<Half>().value()[0].bits, 0x3c00);
  EXPECT_EQ(ops::Add(one, tiny * 3.0).ToVector<Half>().value()[0].bits, 0x3c02);
  // A Python-style scalar keeps the tensor's dtype, rounded to it first.
  Tensor s = Full({1}, 1, DType::kFloat16) * 0.1;
  EXPECT_EQ(s.dtype(), DType::kFloat16);
  EXPECT_EQ(s.ToVector<Half>().value()[0], Half(0.1));
}

TEST(DTypes, UInt8IsIntegerArithmetic) {
  Tensor a = FromVector<uint8_t>({200, 10, 0}, {3}), b = FromVector<uint8_t>({100, 3, 1}, {3});
  EXPECT_EQ((a + b).ToVector<uint8_t>().value(), (std::vector<uint8_t>{44, 13, 1}));  // wraps
  EXPECT_EQ((a - b).ToVector<uint8_t>().value(), (std::vector<uint8_t>{100, 7, 255}));
  EXPECT_EQ((a / b).ToVector<uint8_t>().value(), (std::vector<uint8_t>{2, 3, 0}));
  EXPECT_EQ(ops::Lt(a, b).ToVector<bool>().value(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(ops::Minimum(a, b).ToVector<uint8_t>().value(), (std::vector<uint8_t>{100, 3, 0}));
  Tensor sum = ops::Sum(a);  // in int64, as numpy sums uint8 in a 64-bit integer
  EXPECT_EQ(sum.dtype(), DType::kInt64);
  EXPECT_EQ(sum.Item<int64_t>().value(), 210);
  EXPECT_EQ(ops::Max(a).Item<uint8_t>().value(), 200);
  EXPECT_EQ((a + 1).ToVector<uint8_t>().value(), (std::vector<uint8_t>{201, 11, 1}));
  Tensor z = FromVector<uint8_t>({1, 0}, {2});
  EXPECT_FALSE(ops::Div(a.Slice(0, 2), z).Wait().ok());  // integer division by zero
}

// Where a dtype has no kernel, the op refuses at the call, naming op and dtype.
TEST(DTypes, UnsupportedDTypesAreRefusedAtTheCall) {
  Tensor u = FromVector<uint8_t>({1, 2}, {2});
  for (const Tensor& t : {ops::Relu(u), ops::Exp(u), ops::Softmax(u, 0), ops::Mean(u),
                          ops::MatMul(u.Reshape({1, 2}), u.Reshape({2, 1}))}) {
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
    EXPECT_NE(t.status().message().find("uint8"), std::string_view::npos) << t.status();
  }
  Tensor r = ops::Relu(u);
  EXPECT_NE(r.status().message().find("Relu"), std::string_view::npos) << r.status();
}

TEST(Promotion, NumpyTableByDefault) {
  struct Case {
    DType a, b, want;
  };
  const Case cases[] = {
      {DType::kInt32, DType::kFloat32, DType::kFloat32},
      {DType::kUInt8, DType::kInt32, DType::kInt32},
      {DType::kInt32, DType::kInt64, DType::kInt64},
      {DType::kFloat16, DType::kBFloat16, DType::kFloat32},
      {DType::kInt64, DType::kFloat16, DType::kFloat16},
      {DType::kFloat16, DType::kFloat32, DType::kFloat32},
      {DType::kBFloat16, DType::kFloat64, DType::kFloat64},
      {DType::kFloat32, DType::kFloat64, DType::kFloat64},
      {DType::kUInt8, DType::kBFloat16, DType::kBFloat16},
  };
  for (const Case& c : cases) {
    for (bool swap : {false, true}) {
      SCOPED_TRACE(std::string(ToString(c.a)) + " + " + std::string(ToString(c.b)));
      Tensor a = ops::Cast(FromVector<double>({1, 2, 3}, {3}), swap ? c.b : c.a);
      Tensor b = ops::Cast(FromVector<double>({1}, {1}), swap ? c.a : c.b);  // broadcast too
      Tensor sum = ops::Add(a, b);
      ASSERT_TRUE(sum.ok()) << sum.status();
      EXPECT_EQ(sum.dtype(), c.want);
      EXPECT_EQ(AsDoubles(sum), (std::vector<double>{2, 3, 4}));
      Tensor eq = ops::Eq(a, b);
      ASSERT_TRUE(eq.ok()) << eq.status();
      EXPECT_EQ(eq.ToVector<bool>().value(), (std::vector<bool>{true, false, false}));
      Tensor m = ops::Minimum(a, b);
      ASSERT_TRUE(m.ok()) << m.status();
      EXPECT_EQ(m.dtype(), c.want);
      Tensor w = ops::Where(FromVector<bool>({true, false, true}, {3}), a, b);
      ASSERT_TRUE(w.ok()) << w.status();
      EXPECT_EQ(w.dtype(), c.want);
      EXPECT_EQ(AsDoubles(w), (std::vector<double>{1, 1, 3}));
    }
  }
  // int32 + float32 computes in float32: 2^24 + 1 is not a float32.
  Tensor big = FromVector<int32_t>({(1 << 24) + 1}, {1});
  EXPECT_EQ(ops::Add(big, Zeros({1}, DType::kFloat32)).Item<float>().value(), 16777216.0f);
  // bool with a number is that number's dtype.
  Tensor flag = FromVector<bool>({true, false}, {2});
  Tensor bu = ops::Add(flag, FromVector<uint8_t>({5, 5}, {2}));
  EXPECT_EQ(bu.dtype(), DType::kUInt8);
  EXPECT_EQ(bu.ToVector<uint8_t>().value(), (std::vector<uint8_t>{6, 5}));
  // Arithmetic on bool stays refused after promotion to bool.
  Tensor t = FromVector<bool>({true}, {1});
  EXPECT_EQ(ops::Add(t, t).status().code(), absl::StatusCode::kInvalidArgument);
  // Devices are checked before dtypes are promoted; errors keep naming the op.
  EXPECT_EQ(ops::Add(Tensor(), big).status().code(), absl::StatusCode::kFailedPrecondition);
}

// A float32 leaf used as float16 gets its gradient back through the Cast;
// a float16 leaf is refused with a message saying what to do.
TEST(DTypes, AutogradThroughHalf) {
  Tensor w = FromVector<float>({1, 2, 3}, {3}).RequiresGrad();
  Tensor h = ops::Cast(w, DType::kFloat16);
  Tensor loss = ops::Sum(ops::Cast(h * h, DType::kFloat32));
  ASSERT_TRUE(autograd::Backward(loss).ok());
  ASSERT_TRUE(w.grad().ok());
  EXPECT_EQ(w.grad().ToVector<float>().value(), (std::vector<float>{2, 4, 6}));
  Tensor leaf = Full({2}, 1, DType::kBFloat16).RequiresGrad();
  EXPECT_EQ(leaf.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(leaf.status().message().find("bfloat16"), std::string_view::npos) << leaf.status();
}

}  // namespace
}  // namespace eagervm
