// Faster walks of strided views for CPU kernels (beside strided.h's
// ForEachStridedRow), for the shapes where a plain row walk loses most:
// - ForEachPrefetchedRow: a column Slice of a large tensor, whose rows lie
//   apart in its storage, walked row by row with software prefetches;
// - ForEachTransposedRow: a transposed view, copied panel by panel into
//   row-major buffers so the kernel's row function runs on compact rows;
// - TransposedCopy: a transposed view copied straight into a compact one.
// Each returns false (and does nothing) where its shape does not apply;
// the caller then takes ForEachStridedRow. Any thread may call; nothing
// blocks.
#ifndef EAGERVM_KERNELS_CPU_STRIDED_ROWS_H_
#define EAGERVM_KERNELS_CPU_STRIDED_ROWS_H_

#include <cstdint>

#include "kernels/cpu/strided.h"
#include "kernels/cpu/transposed_tiles.h"

namespace eagervm::kernels {

// Calls row(off, n, step) exactly as ForEachStridedRow would, for a rank-2
// plan whose operands all step 0 or 1 along a row, where some input
// (operand k >= 1) has rows that lie apart in its storage (a column Slice:
// row stride > row length) and the walk covers at least kMinBytes: row by
// row in chunks of 16 cache lines, each chunk first prefetching the gapped
// inputs' same columns at least kAheadBytes further on (whole rows ahead).
// This CPU's hardware prefetchers do not follow a run of rows with gaps
// between them (an AMD EPYC VM, Add of [2048, 2048] float32 from a
// [2048, 4096] base: 1.7 ms row by row, 1.37 ms with these prefetches, 1.11
// ms the contiguous add; chunks of 64 lines, a burst of prefetches more than
// the CPU keeps in flight, took 1.5 ms). Smaller views are left to the row
// walk: in cache the prefetches only cost (49.9 against 45.9 us at
// [512, 512]). A broadcast row (row stride 0) is no gap. `base[k]` is
// operand k's first element, elements of `elem_bytes` bytes.
template <int K, typename RowFn>
bool ForEachPrefetchedRow(const StridedPlan<K>& p, int64_t elem_bytes, const void* const (&base)[K],
                          RowFn&& row) {
  constexpr int64_t kAheadBytes = 8192, kMinBytes = int64_t{4} << 20, kLineBytes = 64;
  if (p.rank != 2) return false;
  const int64_t m = p.dims[0], n = p.dims[1];
  bool gap[K] = {};
  bool any = false;
  int64_t step[K];
  for (int k = 0; k < K; ++k) {
    step[k] = p.strides[k][1];
    if (step[k] != 0 && step[k] != 1) return false;
    gap[k] = k > 0 && step[k] == 1 && p.strides[k][0] > n;
    any |= gap[k];
  }
  const int64_t row_bytes = n * elem_bytes;
  if (!any || m * row_bytes < kMinBytes) return false;
  const int64_t chunk = 16 * kLineBytes / elem_bytes;
  const int64_t ahead = (kAheadBytes + row_bytes - 1) / row_bytes;
  int64_t off[K];
  for (int64_t r = 0; r < m; ++r) {
    const bool fetch = r + ahead < m;
    for (int64_t j = 0; j < n; j += chunk) {
      const int64_t len = n - j < chunk ? n - j : chunk;
      for (int k = 0; k < K && fetch; ++k) {
        if (!gap[k]) continue;
        const char* next =
            static_cast<const char*>(base[k]) + ((r + ahead) * p.strides[k][0] + j) * elem_bytes;
        for (int64_t q = 0; q < len * elem_bytes; q += kLineBytes)
          __builtin_prefetch(next + q, 0, 3);
      }
      for (int k = 0; k < K; ++k) off[k] = r * p.strides[k][0] + j * step[k];
      row(static_cast<const int64_t*>(off), len, static_cast<const int64_t*>(step));
    }
  }
  return true;
}

// Whether a rank-2 plan over (out, x) has out step 1 along a row and x step
// 1 down a column and more than 1 along a row (a transposed view).
template <int K>
bool IsTransposedPlan(const StridedPlan<K>& p) {
  return p.rank == 2 && p.strides[0][1] == 1 && p.strides[1][0] == 1 && p.strides[1][1] > 1;
}

// transposed_tiles' arguments for such a plan, float32, with no second
// operand yet (a unary op; a binary one sets it).
template <int K>
transposed_tiles::Args TransposedArgs(const StridedPlan<K>& p, float* out, const float* x) {
  transposed_tiles::Args args;
  args.m = p.dims[0];
  args.n = p.dims[1];
  args.src = x;
  args.src_col = p.strides[1][1];
  args.out = out;
  args.out_row = p.strides[0][0];
  return args;
}

// For a rank-2 plan over (out, x) where out steps 1 along a row and x steps
// 1 down a column and more than 1 along a row (a transposed view): copies x
// into a row-major buffer a panel at a time, one 64-byte line of each of
// kCols storage rows of x (4-byte elements: 8 x 8 blocks transposed in AVX2
// registers where the CPU has AVX2), then calls row(out_row, buf_row, n) for
// each of the panel's rows, `out_row` the first of n compact elements of
// out, `buf_row` the same elements of x, compact. Panels walk down kCols
// columns, so each line of x is read whole once.
template <typename T, typename RowFn>
bool ForEachTransposedRow(const StridedPlan<2>& p, T* out, const T* x, RowFn&& row) {
  if (!IsTransposedPlan(p)) return false;
  constexpr int64_t kCols = 256;
  constexpr int64_t kStep = sizeof(T) >= 64 ? 1 : 64 / static_cast<int64_t>(sizeof(T));
  alignas(64) T buf[kStep * kCols];
  const int64_t m = p.dims[0], n = p.dims[1], col = p.strides[1][1], out_row = p.strides[0][0];
  for (int64_t c0 = 0; c0 < n; c0 += kCols) {
    const int64_t cw = n - c0 < kCols ? n - c0 : kCols;
    for (int64_t r0 = 0; r0 < m; r0 += kStep) {
      const int64_t rh = m - r0 < kStep ? m - r0 : kStep;
      const T* src = x + c0 * col + r0;
      if (sizeof(T) != 4 || !transposed_tiles::TransposeToBuffer4(src, col, rh, cw, buf, kCols)) {
        for (int64_t c = 0; c < cw; ++c) {
          for (int64_t r = 0; r < rh; ++r) buf[r * kCols + c] = src[c * col + r];
        }
      }
      for (int64_t r = 0; r < rh; ++r) {
        row(out + (r0 + r) * out_row + c0, static_cast<const T*>(buf + r * kCols), cw);
      }
    }
  }
  return true;
}

// For a plan as ForEachTransposedRow's, out's elements = x's, 4-byte
// elements copied as bits, 8 x 8 blocks transposed in AVX2 registers, in
// the same panels: false (nothing written) for other element sizes, other
// plans, or a CPU without AVX2. out must not overlap x. (The plain tiled
// walk of 4-byte elements took 6.0 ms at [2048, 2048], this one 2.0 ms.)
template <typename T>
bool TransposedCopy(const StridedPlan<2>& p, T* out, const T* x) {
  if (sizeof(T) != 4 || !IsTransposedPlan(p) || !transposed_tiles::Avx2Supported()) return false;
  constexpr int64_t kCols = 256, kStep = 16;
  const int64_t m = p.dims[0], n = p.dims[1], col = p.strides[1][1], out_row = p.strides[0][0];
  for (int64_t c0 = 0; c0 < n; c0 += kCols) {
    const int64_t cw = n - c0 < kCols ? n - c0 : kCols;
    for (int64_t r0 = 0; r0 < m; r0 += kStep) {
      const int64_t rh = m - r0 < kStep ? m - r0 : kStep;
      transposed_tiles::TransposeToBuffer4(x + c0 * col + r0, col, rh, cw, out + r0 * out_row + c0,
                                           out_row);
    }
  }
  return true;
}

// The same plan with its two dims swapped (each operand's strides with
// them): a written transposed view (dst steps 1 down a column, more along a
// row; src compact) becomes one TransposedCopy takes, dst as its out.
inline StridedPlan<2> SwapDims(const StridedPlan<2>& p) {
  StridedPlan<2> q = p;
  if (p.rank != 2) return q;
  q.dims[0] = p.dims[1];
  q.dims[1] = p.dims[0];
  for (int k = 0; k < 2; ++k) {
    q.strides[k][0] = p.strides[k][1];
    q.strides[k][1] = p.strides[k][0];
  }
  return q;
}

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_STRIDED_ROWS_H_
