// float32 elementwise ops on a transposed view (binary_kernels.cc's
// TransposedTiles, unary_kernels.cc, the tensor-scalar ops): out[r, c] =
// f(src[c * src_col + r], other) where `other` is a compact operand's
// element (r, c), a scalar, or nothing (a unary op), read down the view's
// columns 8 x 8 at a time and transposed in AVX2 registers. Panels of
// kPanelCols columns are walked 16 rows at a time, so each 64-byte line of
// `src` is read whole once and the panel's storage rows stay within the TLB,
// while `out` and `other` are streamed along their rows; the reads of `src`
// overlap with the stores (a copy into a buffer first, then the op on its
// rows, took 2.8 against 1.4 ms for Relu at [2048, 2048]). The same float
// operation per element as the contiguous op, so the same bits. Any thread
// may call; nothing blocks.
#ifndef EAGERVM_KERNELS_CPU_TRANSPOSED_TILES_H_
#define EAGERVM_KERNELS_CPU_TRANSPOSED_TILES_H_

#include <cstdint>

namespace eagervm::kernels::transposed_tiles {

// Add..Div: binary, with a compact operand or a scalar; Relu (x < 0 ? 0 :
// x, NaN kept) and Neg (0 - x): unary.
enum class LaneOp { kAdd, kSub, kMul, kDiv, kRelu, kNeg };
// What the second operand of a binary LaneOp is.
enum class Other { kRows, kScalar };

// m x n elements; `src` holds the view's element (r, c) at c * src_col + r;
// out's rows are out_row apart (step 1 along a row). The second operand of
// a binary op: other[r * other_row + c] (Other::kRows), or `scalar`.
// src_first: out = f(src, other), else f(other, src). out must not overlap
// src.
struct Args {
  int64_t m = 0, n = 0;
  const float* src = nullptr;
  int64_t src_col = 0;
  Other other_kind = Other::kRows;
  const float* other = nullptr;
  int64_t other_row = 0;
  float scalar = 0;
  float* out = nullptr;
  int64_t out_row = 0;
  bool src_first = true;
};

// Whether this process can run the AVX2 kernel (an x86-64 build on a CPU
// with AVX2).
bool Avx2Supported();

// Runs the AVX2 kernel and returns true, or returns false (nothing written)
// where it is not supported.
bool RunAvx2(LaneOp op, const Args& a);

// buf[r * buf_row + c] = src[c * src_col + r] for r < rows, c < cols, for
// 4-byte elements (copied as bits), 8 x 8 blocks transposed in AVX2
// registers: returns true, or false (nothing written) where the CPU lacks
// AVX2. `buf` must not overlap `src`.
bool TransposeToBuffer4(const void* src, int64_t src_col, int64_t rows, int64_t cols, void* buf,
                        int64_t buf_row);

}  // namespace eagervm::kernels::transposed_tiles

#endif  // EAGERVM_KERNELS_CPU_TRANSPOSED_TILES_H_
