#include "kernels/cpu/broadcast.h"

namespace eagervm::kernels {

BroadcastPlan MakeBroadcastPlan(const Shape& out, const Shape& a, const Shape& b) {
  BroadcastPlan p;
  p.rank = 0;
  bool prev_fa = false, prev_fb = false;
  const int rank = out.rank();
  for (int d = 0; d < rank; ++d) {
    const int64_t od = out[d];
    if (od == 1) continue;  // contributes nothing to any offset
    const int da = d - (rank - a.rank()), db = d - (rank - b.rank());
    const bool fa = (da < 0 ? 1 : a[da]) != od;  // `a` repeats along d
    const bool fb = (db < 0 ? 1 : b[db]) != od;
    if (p.rank > 0 && fa == prev_fa && fb == prev_fb) {
      p.dims[p.rank - 1] *= od;  // same pattern as the previous dim: one longer dim
    } else {
      p.dims[p.rank] = od;
      p.stride_a[p.rank] = fa ? 0 : 1;  // marks; turned into strides below
      p.stride_b[p.rank] = fb ? 0 : 1;
      ++p.rank;
    }
    prev_fa = fa;
    prev_fb = fb;
  }
  if (p.rank == 0) {  // every dim is 1: a single element
    p.rank = 1;
    p.dims[0] = 1;
    p.stride_a[0] = p.stride_b[0] = 1;
    return p;
  }
  int64_t acc_a = 1, acc_b = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    if (p.stride_a[d] != 0) {
      p.stride_a[d] = acc_a;
      acc_a *= p.dims[d];
    }
    if (p.stride_b[d] != 0) {
      p.stride_b[d] = acc_b;
      acc_b *= p.dims[d];
    }
  }
  return p;
}

}  // namespace eagervm::kernels
