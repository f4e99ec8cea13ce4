// Strided walks for CPU kernels that read strided views natively
// (ops/strided.h): an N-d index space with per-operand element strides,
// dims of extent 1 dropped and adjacent dims merged wherever every operand
// allows, so a view that is compact along its rows (a Slice on an inner
// axis) is walked as contiguous rows, and a compact tensor as one row.
#ifndef EAGERVM_KERNELS_CPU_STRIDED_H_
#define EAGERVM_KERNELS_CPU_STRIDED_H_

#include <cstdint>
#include <vector>

#include "eagervm/kernel.h"
#include "eagervm/shape.h"

namespace eagervm::kernels {

template <int K>
struct StridedPlan {
  int rank = 1;
  int64_t dims[Shape::kMaxDims] = {1};
  int64_t strides[K][Shape::kMaxDims] = {};
};

// `strides[k]` has one entry per dim of `shape` (operand k's element strides).
template <int K>
StridedPlan<K> MakeStridedPlan(const Shape& shape, const int64_t* const (&strides)[K]) {
  StridedPlan<K> p;
  if (shape.numel() == 0) {  // nothing to walk; its extents' products may overflow
    p.dims[0] = 0;
    for (int k = 0; k < K; ++k) p.strides[k][0] = 1;
    return p;
  }
  p.rank = 0;
  const int rank = static_cast<int>(shape.dims().size());
  for (int d = 0; d < rank; ++d) {
    const int64_t n = shape[d];
    if (n == 1) continue;
    bool merge = p.rank > 0;
    for (int k = 0; k < K && merge; ++k) {
      merge = p.strides[k][p.rank - 1] == strides[k][d] * n;
    }
    if (merge) {
      p.dims[p.rank - 1] *= n;
      for (int k = 0; k < K; ++k) p.strides[k][p.rank - 1] = strides[k][d];
    } else {
      p.dims[p.rank] = n;
      for (int k = 0; k < K; ++k) p.strides[k][p.rank] = strides[k][d];
      ++p.rank;
    }
  }
  if (p.rank == 0) {  // one element
    p.rank = 1;
    p.dims[0] = 1;
    for (int k = 0; k < K; ++k) p.strides[k][0] = 1;
  }
  return p;
}

// Calls row(off, n, step) once per run of n elements along the innermost
// dim: off[k] is operand k's element offset of the run's first element,
// step[k] its stride along it. Where some operand steps by more than one
// element along the innermost dim (a transposed view), the last two dims are
// walked in square tiles, so that both that operand and the compact ones
// stay in cache (a plain row walk would read one element per cache line).
template <int K, typename RowFn>
void ForEachStridedRow(const StridedPlan<K>& p, RowFn&& row) {
  const int last = p.rank - 1;
  const int64_t n = p.dims[last];
  if (n == 0) return;
  int64_t step[K];
  bool gather = false;
  for (int k = 0; k < K; ++k) {
    step[k] = p.strides[k][last];
    gather |= step[k] > 1;
  }
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) {
    if (p.dims[d] == 0) return;
    rows *= p.dims[d];
  }
  constexpr int64_t kTile = 32;
  if (gather && last >= 1 && n > kTile && p.dims[last - 1] > kTile) {
    const int mid = last - 1;
    const int64_t m = p.dims[mid];
    int64_t outer = 1;
    for (int d = 0; d < mid; ++d) outer *= p.dims[d];
    int64_t index[Shape::kMaxDims] = {};
    int64_t base[K] = {};
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t r0 = 0; r0 < m; r0 += kTile) {
        for (int64_t c0 = 0; c0 < n; c0 += kTile) {
          const int64_t len = n - c0 < kTile ? n - c0 : kTile;
          for (int64_t r = r0; r < m && r < r0 + kTile; ++r) {
            int64_t off[K];
            for (int k = 0; k < K; ++k) off[k] = base[k] + r * p.strides[k][mid] + c0 * step[k];
            row(static_cast<const int64_t*>(off), len, static_cast<const int64_t*>(step));
          }
        }
      }
      for (int d = mid - 1; d >= 0; --d) {
        for (int k = 0; k < K; ++k) base[k] += p.strides[k][d];
        if (++index[d] < p.dims[d]) break;
        for (int k = 0; k < K; ++k) base[k] -= p.strides[k][d] * p.dims[d];
        index[d] = 0;
      }
    }
    return;
  }
  int64_t index[Shape::kMaxDims] = {};
  int64_t off[K] = {};
  for (int64_t r = 0; r < rows; ++r) {
    row(static_cast<const int64_t*>(off), n, static_cast<const int64_t*>(step));
    for (int d = last - 1; d >= 0; --d) {
      for (int k = 0; k < K; ++k) off[k] += p.strides[k][d];
      if (++index[d] < p.dims[d]) break;
      for (int k = 0; k < K; ++k) off[k] -= p.strides[k][d] * p.dims[d];
      index[d] = 0;
    }
  }
}

// Input `i` of a kernel whose op reads it as a strided view: its logical
// shape and element strides (from the call's attrs when it is a view, else
// its meta's shape and compact strides).
struct InputLayout {
  Shape shape;
  std::vector<int64_t> strides;
  bool strided = false;
};
InputLayout LayoutOfInput(const KernelContext& ctx, int i);

// `in`'s strides aligned to `out` (numpy broadcasting: leading missing dims
// and dims of extent 1 that `out` extends get stride 0). `aligned` has
// room for out's rank.
void AlignStrides(const InputLayout& in, const Shape& out, int64_t* aligned);

// True if no input of this call is a strided view (the common case: no attrs).
inline bool NoStridedInputs(const KernelContext& ctx) { return ctx.attrs().empty(); }

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_STRIDED_H_
