// Numpy broadcasting by index arithmetic: no input is ever materialised at the
// output's shape. The output is walked as rows of its innermost (collapsed)
// dimension; along a row each input either advances (stride 1) or repeats one
// element (stride 0), so every row is a contiguous loop the compiler vectorises.
#ifndef EAGERVM_KERNELS_CPU_BROADCAST_H_
#define EAGERVM_KERNELS_CPU_BROADCAST_H_

#include <cstdint>

#include "eagervm/shape.h"

namespace eagervm::kernels {

// The output shape with adjacent dimensions merged wherever both inputs
// broadcast the same way, and size-1 output dimensions dropped. Rank >= 1.
// For equal shapes this is one row of numel() elements.
struct BroadcastPlan {
  int rank = 1;
  int64_t dims[Shape::kMaxDims] = {1};
  int64_t stride_a[Shape::kMaxDims] = {};  // elements; 0 where `a` broadcasts
  int64_t stride_b[Shape::kMaxDims] = {};
};

// `a` and `b` must broadcast to `out` (checked by the op on the calling thread).
BroadcastPlan MakeBroadcastPlan(const Shape& out, const Shape& a, const Shape& b);

// Calls row(out_offset, a_offset, b_offset, n, a_step, b_step) once per output
// row of n elements; steps are 0 or 1. Offsets are in elements.
template <typename RowFn>
void ForEachRow(const BroadcastPlan& p, RowFn&& row) {
  const int last = p.rank - 1;
  const int64_t n = p.dims[last];
  const int64_t sa = p.stride_a[last], sb = p.stride_b[last];
  if (n == 0) return;
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= p.dims[d];
  int64_t index[Shape::kMaxDims] = {};
  int64_t off_a = 0, off_b = 0;
  for (int64_t r = 0; r < rows; ++r) {
    row(r * n, off_a, off_b, n, sa, sb);
    // Odometer over the outer dimensions, keeping input offsets incrementally.
    for (int d = last - 1; d >= 0; --d) {
      off_a += p.stride_a[d];
      off_b += p.stride_b[d];
      if (++index[d] < p.dims[d]) break;
      off_a -= p.stride_a[d] * p.dims[d];
      off_b -= p.stride_b[d] * p.dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_BROADCAST_H_
