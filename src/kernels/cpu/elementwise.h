// Scalar functions of the elementwise kernels and the row loops that apply
// them. Integer arithmetic wraps (two's complement; base/arith.h).
#ifndef EAGERVM_KERNELS_CPU_ELEMENTWISE_H_
#define EAGERVM_KERNELS_CPU_ELEMENTWISE_H_

#include <cstdint>
#include <type_traits>

#include "base/arith.h"

namespace eagervm::kernels {

// The element arithmetic, shared with the CUDA kernels (base/arith.h).
using base::kIsInt;
using base::MaxOf;
using base::WrapAdd;
using base::WrapDiv;
using base::WrapMul;
using base::WrapSub;

struct AddOp {
  template <typename T>
  static T Apply(T a, T b) {
    return WrapAdd(a, b);
  }
};
struct SubOp {
  template <typename T>
  static T Apply(T a, T b) {
    return WrapSub(a, b);
  }
};
struct MulOp {
  template <typename T>
  static T Apply(T a, T b) {
    return WrapMul(a, b);
  }
};
// Integers: truncates toward zero; the caller rejects zero divisors first.
// min / -1 wraps to min instead of trapping.
struct DivOp {
  template <typename T>
  static T Apply(T a, T b) {
    return WrapDiv(a, b);
  }
};
// NaN-propagating, like numpy.maximum.
struct MaxOp {
  template <typename T>
  static T Apply(T a, T b) {
    return MaxOf(a, b);
  }
};

// out[i] = Op(a[i * sa], b[i * sb]) for i < n; sa and sb are 0 or 1. One
// specialised loop per stride pattern so each is a plain vectorisable loop.
// `out` may alias `a` (in-place ops); its element type O is T's, or another
// (bool, for comparisons).
template <typename Op, typename O, typename T>
inline void BinaryRow(O* out, const T* a, const T* b, int64_t n, int64_t sa, int64_t sb) {
  if (sa != 0 && sb != 0) {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(a[i], b[i]);
  } else if (sa != 0) {
    const T y = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(a[i], y);
  } else if (sb != 0) {
    const T x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(x, b[i]);
  } else {
    const O v = Op::Apply(a[0], b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_ELEMENTWISE_H_
