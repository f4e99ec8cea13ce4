#include "kernels/cpu/transposed_tiles.h"

#include <cstring>

namespace eagervm::kernels::transposed_tiles {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EAGERVM_TRANSPOSED_AVX2 1
namespace {

typedef float F8 __attribute__((vector_size(32)));

// Columns per panel: the panel's storage rows of src (one 4 KiB page each
// per 16 rows) stay within the TLB while the panel is walked down.
constexpr int64_t kPanelCols = 256;
// Rows per step down a panel: 16 floats, one whole 64-byte line of src.
constexpr int64_t kStepRows = 16;

// 8-lane vectors are passed by reference: by value they would cross the
// baseline ABI (everything here inlines into the AVX2 functions).
template <LaneOp kOp>
inline void Apply(const F8& a, const F8& b, F8* out) {
  if constexpr (kOp == LaneOp::kAdd) *out = a + b;
  if constexpr (kOp == LaneOp::kSub) *out = a - b;
  if constexpr (kOp == LaneOp::kMul) *out = a * b;
  if constexpr (kOp == LaneOp::kDiv) *out = a / b;
  if constexpr (kOp == LaneOp::kRelu) *out = a < F8{} ? F8{} : a;
  if constexpr (kOp == LaneOp::kNeg) *out = F8{} - a;
}
template <LaneOp kOp>
inline float Apply1(float a, float b) {
  if constexpr (kOp == LaneOp::kAdd) return a + b;
  if constexpr (kOp == LaneOp::kSub) return a - b;
  if constexpr (kOp == LaneOp::kMul) return a * b;
  if constexpr (kOp == LaneOp::kDiv) return a / b;
  if constexpr (kOp == LaneOp::kRelu) return a < 0.0f ? 0.0f : a;
  if constexpr (kOp == LaneOp::kNeg) return 0.0f - a;
}
constexpr bool Unary(LaneOp op) { return op == LaneOp::kRelu || op == LaneOp::kNeg; }

// x[j][i] -> x[i][j] for an 8 x 8 block.
inline void Transpose8(F8* x) {
  F8 t[8], s[8];
#pragma GCC unroll 4
  for (int k = 0; k < 8; k += 2) {
    t[k] = __builtin_shufflevector(x[k], x[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[k + 1] = __builtin_shufflevector(x[k], x[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
#pragma GCC unroll 2
  for (int k = 0; k < 8; k += 4) {
    s[k] = __builtin_shufflevector(t[k], t[k + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    s[k + 1] = __builtin_shufflevector(t[k], t[k + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    s[k + 2] = __builtin_shufflevector(t[k + 1], t[k + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    s[k + 3] = __builtin_shufflevector(t[k + 1], t[k + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    x[k] = __builtin_shufflevector(s[k], s[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    x[k + 4] = __builtin_shufflevector(s[k], s[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// kOther: the second operand's kind (ignored for a unary kOp).
template <LaneOp kOp, bool kSrcFirst, Other kOther>
inline void Tiles(const Args& a) {
  const int64_t m8 = a.m & ~int64_t{7}, n8 = a.n & ~int64_t{7};
  F8 scalar;
  for (int k = 0; k < 8; ++k) scalar[k] = a.scalar;
  // f(x, the second operand at (r, c)), in 8 lanes and in one.
  auto f8 = [&](const F8& x, int64_t r, int64_t c, F8* out) {
    if constexpr (Unary(kOp)) {
      Apply<kOp>(x, x, out);
    } else {
      F8 o = scalar;
      if constexpr (kOther == Other::kRows) std::memcpy(&o, a.other + r * a.other_row + c, 32);
      kSrcFirst ? Apply<kOp>(x, o, out) : Apply<kOp>(o, x, out);
    }
  };
  auto f1 = [&](float x, int64_t r, int64_t c) {
    if constexpr (Unary(kOp)) return Apply1<kOp>(x, x);
    const float o = kOther == Other::kRows ? a.other[r * a.other_row + c] : a.scalar;
    return kSrcFirst ? Apply1<kOp>(x, o) : Apply1<kOp>(o, x);
  };
  for (int64_t c0 = 0; c0 < n8; c0 += kPanelCols) {
    const int64_t c1 = c0 + kPanelCols < n8 ? c0 + kPanelCols : n8;
    for (int64_t r0 = 0; r0 < m8; r0 += kStepRows) {
      const int64_t r1 = r0 + kStepRows < m8 ? r0 + kStepRows : m8;
      for (int64_t r = r0; r < r1; r += 8) {
        for (int64_t c = c0; c < c1; c += 8) {
          // x[j][i] = element (r + i, c + j) of the view.
          F8 x[8];
#pragma GCC unroll 8
          for (int j = 0; j < 8; ++j) std::memcpy(&x[j], a.src + (c + j) * a.src_col + r, 32);
          Transpose8(x);
#pragma GCC unroll 8
          for (int i = 0; i < 8; ++i) {
            F8 o;
            f8(x[i], r + i, c, &o);
            std::memcpy(a.out + (r + i) * a.out_row + c, &o, 32);
          }
        }
      }
    }
  }
  // The edges: rows from m8 (every column), columns from n8 (rows below m8).
  auto one = [&](int64_t r, int64_t c) {
    a.out[r * a.out_row + c] = f1(a.src[c * a.src_col + r], r, c);
  };
  for (int64_t r = m8; r < a.m; ++r)
    for (int64_t c = 0; c < a.n; ++c) one(r, c);
  for (int64_t r = 0; r < m8; ++r)
    for (int64_t c = n8; c < a.n; ++c) one(r, c);
}

// flatten: the helpers above (lambdas included) are inlined, so built for
// AVX2 too.
template <LaneOp kOp>
__attribute__((target("avx2"), flatten)) void TilesAvx2(const Args& a) {
  if constexpr (Unary(kOp)) {  // no second operand: one form
    Tiles<kOp, true, Other::kRows>(a);
  } else if (a.other_kind == Other::kScalar) {
    a.src_first ? Tiles<kOp, true, Other::kScalar>(a) : Tiles<kOp, false, Other::kScalar>(a);
  } else {
    a.src_first ? Tiles<kOp, true, Other::kRows>(a) : Tiles<kOp, false, Other::kRows>(a);
  }
}

// See TransposeToBuffer4; F8 holds 8 floats' bits (moved, never computed on).
__attribute__((target("avx2"), flatten)) void TransposeToBufferAvx2(const float* src,
                                                                    int64_t src_col, int64_t rows,
                                                                    int64_t cols, float* buf,
                                                                    int64_t buf_row) {
  const int64_t r8 = rows & ~int64_t{7}, c8 = cols & ~int64_t{7};
  for (int64_t r = 0; r < r8; r += 8) {
    for (int64_t c = 0; c < c8; c += 8) {
      F8 x[8];
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) std::memcpy(&x[j], src + (c + j) * src_col + r, 32);
      Transpose8(x);
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) std::memcpy(buf + (r + i) * buf_row + c, &x[i], 32);
    }
  }
  for (int64_t c = 0; c < cols; ++c) {  // the edges: rows from r8, columns from c8
    for (int64_t r = c < c8 ? r8 : 0; r < rows; ++r) {
      std::memcpy(buf + r * buf_row + c, src + c * src_col + r, 4);
    }
  }
}

}  // namespace
#endif

bool TransposeToBuffer4(const void* src, int64_t src_col, int64_t rows, int64_t cols, void* buf,
                        int64_t buf_row) {
#ifdef EAGERVM_TRANSPOSED_AVX2
  if (!Avx2Supported()) return false;
  TransposeToBufferAvx2(static_cast<const float*>(src), src_col, rows, cols,
                        static_cast<float*>(buf), buf_row);
  return true;
#else
  (void)src, (void)src_col, (void)rows, (void)cols, (void)buf, (void)buf_row;
  return false;
#endif
}

bool Avx2Supported() {
#ifdef EAGERVM_TRANSPOSED_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

bool RunAvx2(LaneOp op, const Args& a) {
#ifdef EAGERVM_TRANSPOSED_AVX2
  if (!Avx2Supported()) return false;
  switch (op) {
    case LaneOp::kAdd:
      TilesAvx2<LaneOp::kAdd>(a);
      break;
    case LaneOp::kSub:
      TilesAvx2<LaneOp::kSub>(a);
      break;
    case LaneOp::kMul:
      TilesAvx2<LaneOp::kMul>(a);
      break;
    case LaneOp::kDiv:
      TilesAvx2<LaneOp::kDiv>(a);
      break;
    case LaneOp::kRelu:
      TilesAvx2<LaneOp::kRelu>(a);
      break;
    case LaneOp::kNeg:
      TilesAvx2<LaneOp::kNeg>(a);
      break;
  }
  return true;
#else
  (void)op;
  (void)a;
  return false;
#endif
}

}  // namespace eagervm::kernels::transposed_tiles
