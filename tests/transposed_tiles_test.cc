// The AVX2 transposed-operand tiles (kernels/cpu/transposed_tiles.h) against
// a plain loop over the same elements: bitwise the same results for every
// op and operand order, at sizes around the 8 x 8 blocks, the 16-row steps
// and the 256-column panels, with padded rows (strides larger than the
// extents), and nothing written past each output row. Skipped on a CPU
// without AVX2.
#include "kernels/cpu/transposed_tiles.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace eagervm::kernels {
namespace {

using transposed_tiles::Args;
using transposed_tiles::LaneOp;

float Apply(LaneOp op, float a, float b) {
  switch (op) {
    case LaneOp::kAdd:
      return a + b;
    case LaneOp::kSub:
      return a - b;
    case LaneOp::kMul:
      return a * b;
    case LaneOp::kDiv:
      return a / b;
  }
  return 0;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(TransposedTiles, Avx2MatchesAPlainLoop) {
  if (!transposed_tiles::Avx2Supported()) GTEST_SKIP() << "no AVX2 on this CPU";
  constexpr float kSentinel = -12345.5f;
  for (int64_t m : {1, 7, 8, 9, 16, 17, 31, 40, 263}) {
    for (int64_t n : {1, 8, 15, 24, 255, 256, 257, 520}) {
      const int64_t src_col = m + 3, other_row = n + 5, out_row = n + 2;
      std::vector<float> src(static_cast<size_t>(n * src_col));
      std::vector<float> other(static_cast<size_t>(m * other_row));
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 997) * 0.13f - 40;
      for (size_t i = 0; i < other.size(); ++i) {
        other[i] = static_cast<float>((i * 5) % 331) * 0.7f + 0.25f;
      }
      for (LaneOp op : {LaneOp::kAdd, LaneOp::kSub, LaneOp::kMul, LaneOp::kDiv}) {
        for (bool src_first : {true, false}) {
          SCOPED_TRACE(::testing::Message() << m << "x" << n << " op " << static_cast<int>(op)
                                            << " src_first " << src_first);
          std::vector<float> out(static_cast<size_t>(m * out_row), kSentinel);
          Args a;
          a.m = m;
          a.n = n;
          a.src = src.data();
          a.src_col = src_col;
          a.other = other.data();
          a.other_row = other_row;
          a.out = out.data();
          a.out_row = out_row;
          a.src_first = src_first;
          ASSERT_TRUE(transposed_tiles::RunAvx2(op, a));
          int64_t wrong = 0;
          for (int64_t r = 0; r < m; ++r) {
            for (int64_t c = 0; c < out_row; ++c) {
              const float got = out[static_cast<size_t>(r * out_row + c)];
              float want = kSentinel;
              if (c < n) {
                const float x = src[static_cast<size_t>(c * src_col + r)];
                const float o = other[static_cast<size_t>(r * other_row + c)];
                want = src_first ? Apply(op, x, o) : Apply(op, o, x);
              }
              if (Bits(got) != Bits(want) && wrong++ < 3) {
                ADD_FAILURE() << "(" << r << ", " << c << "): " << got << " != " << want;
              }
            }
          }
          EXPECT_EQ(wrong, 0);
        }
      }
    }
  }
}

}  // namespace
}  // namespace eagervm::kernels
