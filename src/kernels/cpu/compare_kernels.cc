// Comparisons (-> bool), Minimum, Where, Abs and Pow. Broadcasting walks the
// output row by row (kernels/cpu/broadcast.h); nothing is materialised.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/strided.h"
#include "ops/strided.h"

namespace eagervm::kernels {
namespace {

struct EqOp {
  template <typename T>
  static bool Apply(T a, T b) {
    return a == b;
  }
};
struct NeOp {
  template <typename T>
  static bool Apply(T a, T b) {
    return a != b;
  }
};
struct LtOp {
  template <typename T>
  static bool Apply(T a, T b) {
    return a < b;
  }
};
struct LeOp {
  template <typename T>
  static bool Apply(T a, T b) {
    return a <= b;
  }
};
struct GtOp {
  template <typename T>
  static bool Apply(T a, T b) {
    return a > b;
  }
};
struct GeOp {
  template <typename T>
  static bool Apply(T a, T b) {
    return a >= b;
  }
};
// NaN-propagating, like numpy.minimum.
struct MinOp {
  template <typename T>
  static T Apply(T a, T b) {
    return (a < b || a != a) ? a : b;
  }
};

// out[i] = Op(a[i * sa], b[i * sb]), out of any element type.
template <typename Op, typename O, typename T>
void Row(O* out, const T* a, const T* b, int64_t n, int64_t sa, int64_t sb) {
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

// Broadcast2 when an input is a strided view (strided.h): any row steps.
template <typename Op, typename O, typename T>
void StridedBroadcast2(KernelContext& ctx, O* out, const T* a, const T* b) {
  const Shape& out_shape = ctx.output_meta(0).shape;
  int64_t sa[Shape::kMaxDims], sb[Shape::kMaxDims];
  AlignStrides(LayoutOfInput(ctx, 0), out_shape, sa);
  AlignStrides(LayoutOfInput(ctx, 1), out_shape, sb);
  const std::vector<int64_t> so = internal::CompactStrides(out_shape);
  const int64_t* const strides[3] = {so.data(), sa, sb};
  ForEachStridedRow(MakeStridedPlan<3>(out_shape, strides),
                    [&](const int64_t* off, int64_t n, const int64_t* step) {
                      O* o = out + off[0];
                      const T* x = a + off[1];
                      const T* y = b + off[2];
                      if ((step[1] == 0 || step[1] == 1) && (step[2] == 0 || step[2] == 1)) {
                        Row<Op>(o, x, y, n, step[1], step[2]);
                      } else {
                        for (int64_t i = 0; i < n; ++i)
                          o[i] = Op::Apply(x[i * step[1]], y[i * step[2]]);
                      }
                    });
}

template <typename Op, typename O, typename T>
void Broadcast2(KernelContext& ctx, O* out, const T* a, const T* b) {
  if (!NoStridedInputs(ctx)) [[unlikely]] {
    StridedBroadcast2<Op>(ctx, out, a, b);
    return;
  }
  const Shape& out_shape = ctx.output_meta(0).shape;
  const Shape& a_shape = ctx.input_meta(0).shape;
  const Shape& b_shape = ctx.input_meta(1).shape;
  const int64_t n = out_shape.numel();
  if (n == 0) return;
  if (a_shape == b_shape) {
    BinaryRow<Op>(out, a, b, n, 1, 1);
    return;
  }
  const BroadcastPlan plan = MakeBroadcastPlan(out_shape, a_shape, b_shape);
  ForEachRow(plan, [&](int64_t o, int64_t ia, int64_t ib, int64_t len, int64_t sa, int64_t sb) {
    BinaryRow<Op>(out + o, a + ia, b + ib, len, sa, sb);
  });
}

template <typename Op>
struct Cmp {
  template <typename T>
  struct Kernel {
    static absl::Status Run(KernelContext& ctx) {
      Broadcast2<Op>(ctx, ctx.output<bool>(0), ctx.input<T>(0), ctx.input<T>(1));
      return absl::OkStatus();
    }
  };
};

template <typename T>
struct Minimum {
  static absl::Status Run(KernelContext& ctx) {
    Broadcast2<MinOp>(ctx, ctx.output<T>(0), ctx.input<T>(0), ctx.input<T>(1));
    return absl::OkStatus();
  }
};

// Element strides of `in` (broadcast to `out`, right-aligned): 0 where it repeats.
void BroadcastStrides(const Shape& out, const Shape& in, int64_t* strides) {
  int64_t acc = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int di = d - (out.rank() - in.rank());
    const int64_t extent = di < 0 ? 1 : in[di];
    strides[d] = extent == 1 ? 0 : acc;
    acc *= extent;
  }
}

// The unsigned integer of T's size: Where selects bit patterns.
template <typename T>
using SelectBits =
    std::conditional_t<sizeof(T) == 8, uint64_t,
                       std::conditional_t<sizeof(T) == 4, uint32_t,
                                          std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;

// One output row of Where with each operand either contiguous (kC, kA, kB)
// or one repeated element (a scalar, a broadcast column). The select is done
// on bits with a mask made from the condition, so the row has no branch and
// vectorises: a branch on each element mispredicts every other one on a ReLU
// mask (a coin flip), which made Where the costliest kernel of an MLP step.
// (The output never overlaps an input: the VM gives each op fresh outputs.)
template <typename T, bool kC, bool kA, bool kB>
void WhereRow(T* __restrict o, const bool* __restrict c, const T* __restrict a,
              const T* __restrict b, int64_t n) {
  using U = SelectBits<T>;
  static_assert(sizeof(U) == sizeof(T));
  U* __restrict ob = reinterpret_cast<U*>(o);
  const U* __restrict ab = reinterpret_cast<const U*>(a);
  const U* __restrict bb = reinterpret_cast<const U*>(b);
  const auto* __restrict cb = reinterpret_cast<const uint8_t*>(c);  // 0 or 1
  const U c0 = cb[0], a0 = ab[0], b0 = bb[0];
  for (int64_t i = 0; i < n; ++i) {
    const U mask = static_cast<U>(U{0} - static_cast<U>(kC ? cb[i] : c0));
    const U x = kA ? ab[i] : a0;
    const U y = kB ? bb[i] : b0;
    ob[i] = static_cast<U>((x & mask) | (y & static_cast<U>(~mask)));
  }
}

template <typename T>
using WhereRowFn = void (*)(T*, const bool*, const T*, const T*, int64_t);

// The row loop for inner steps (sc, sa, sb), each 0 or 1 (BroadcastStrides').
template <typename T>
WhereRowFn<T> PickWhereRow(int64_t sc, int64_t sa, int64_t sb) {
  static constexpr WhereRowFn<T> kRows[8] = {
      WhereRow<T, false, false, false>, WhereRow<T, false, false, true>,
      WhereRow<T, false, true, false>,  WhereRow<T, false, true, true>,
      WhereRow<T, true, false, false>,  WhereRow<T, true, false, true>,
      WhereRow<T, true, true, false>,   WhereRow<T, true, true, true>};
  return kRows[(sc != 0) * 4 + (sa != 0) * 2 + (sb != 0)];
}

// out = cond ? a : b, all three broadcast to out's shape: an odometer over the
// outer dimensions, the innermost one a row of WhereRow.
template <typename T>
struct Where {
  static absl::Status Run(KernelContext& ctx) {
    const Shape& out_shape = ctx.output_meta(0).shape;
    const int64_t n = out_shape.numel();
    if (n == 0) return absl::OkStatus();
    const bool* c = ctx.input<bool>(0);
    const T* a = ctx.input<T>(1);
    const T* b = ctx.input<T>(2);
    T* out = ctx.output<T>(0);
    const int rank = out_shape.rank();
    if (rank == 0) {
      out[0] = c[0] ? a[0] : b[0];
      return absl::OkStatus();
    }
    int64_t sc[Shape::kMaxDims], sa[Shape::kMaxDims], sb[Shape::kMaxDims];
    BroadcastStrides(out_shape, ctx.input_meta(0).shape, sc);
    BroadcastStrides(out_shape, ctx.input_meta(1).shape, sa);
    BroadcastStrides(out_shape, ctx.input_meta(2).shape, sb);
    const int last = rank - 1;
    const int64_t len = out_shape[last];
    const int64_t rows = n / len;
    // Same-shape (compact) operands: one row of n.
    const bool flat = ctx.input_meta(0).shape == out_shape &&
                      ctx.input_meta(1).shape == out_shape && ctx.input_meta(2).shape == out_shape;
    if (flat) {
      WhereRow<T, true, true, true>(out, c, a, b, n);
      return absl::OkStatus();
    }
    const WhereRowFn<T> row = PickWhereRow<T>(sc[last], sa[last], sb[last]);
    int64_t index[Shape::kMaxDims] = {};
    int64_t oc = 0, oa = 0, ob = 0;
    for (int64_t r = 0; r < rows; ++r) {
      T* o = out + r * len;
      row(o, c + oc, a + oa, b + ob, len);
      for (int d = last - 1; d >= 0; --d) {
        oc += sc[d];
        oa += sa[d];
        ob += sb[d];
        if (++index[d] < out_shape[d]) break;
        oc -= sc[d] * out_shape[d];
        oa -= sa[d] * out_shape[d];
        ob -= sb[d] * out_shape[d];
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  }
};

// Integers: |min| wraps to min (two's complement), as numpy does.
template <typename T>
struct Abs {
  static absl::Status Run(KernelContext& ctx) {
    const T* x = ctx.input<T>(0);
    T* out = ctx.output<T>(0);
    const int64_t n = ctx.output_meta(0).shape.numel();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (kIsInt<T> && std::is_signed_v<T>) {
        out[i] = x[i] < 0 ? WrapSub(T{0}, x[i]) : x[i];
      } else if constexpr (std::is_floating_point_v<T>) {
        out[i] = std::fabs(x[i]);
      } else {
        out[i] = x[i];
      }
    }
    return absl::OkStatus();
  }
};

// IEEE pow of each element by the exponent rounded to T (numpy's float32 ** float).
template <typename T>
struct Pow {
  static absl::Status Run(KernelContext& ctx) {
    if constexpr (std::is_floating_point_v<T>) {
      const T p = static_cast<T>(ctx.scalar(0).to<double>());
      const T* x = ctx.input<T>(0);
      T* out = ctx.output<T>(0);
      const int64_t n = ctx.output_meta(0).shape.numel();
      if (p == T{2}) {
        for (int64_t i = 0; i < n; ++i) out[i] = x[i] * x[i];
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] = std::pow(x[i], p);
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterCompareCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Cmp<EqOp>::Kernel>(r, builtin::kEq, kAllDTypes);
  RegisterCpu<Cmp<NeOp>::Kernel>(r, builtin::kNe, kAllDTypes);
  RegisterCpu<Cmp<LtOp>::Kernel>(r, builtin::kLt, kAllDTypes);
  RegisterCpu<Cmp<LeOp>::Kernel>(r, builtin::kLe, kAllDTypes);
  RegisterCpu<Cmp<GtOp>::Kernel>(r, builtin::kGt, kAllDTypes);
  RegisterCpu<Cmp<GeOp>::Kernel>(r, builtin::kGe, kAllDTypes);
  RegisterCpu<Minimum>(r, builtin::kMinimum, kNumericDTypes);
  RegisterCpu<Where>(r, builtin::kWhere, kAllDTypes);
  RegisterCpu<Abs>(r, builtin::kAbs, kNumericDTypes);
  RegisterCpu<Pow>(r, builtin::kPow, kFloatDTypes);
  RegisterCpuTyped<Cmp<EqOp>::Kernel, uint8_t>(r, builtin::kEq);
  RegisterCpuTyped<Cmp<NeOp>::Kernel, uint8_t>(r, builtin::kNe);
  RegisterCpuTyped<Cmp<LtOp>::Kernel, uint8_t>(r, builtin::kLt);
  RegisterCpuTyped<Cmp<LeOp>::Kernel, uint8_t>(r, builtin::kLe);
  RegisterCpuTyped<Cmp<GtOp>::Kernel, uint8_t>(r, builtin::kGt);
  RegisterCpuTyped<Cmp<GeOp>::Kernel, uint8_t>(r, builtin::kGe);
  RegisterCpuTyped<Minimum, uint8_t>(r, builtin::kMinimum);
  RegisterCpuTyped<Where, uint8_t, Half, BFloat16>(r, builtin::kWhere);  // a select: no arithmetic
  RegisterCpuTyped<Abs, uint8_t>(r, builtin::kAbs);
  // These read strided views natively (strided.h).
  for (const char* op : {"Eq", "Ne", "Lt", "Le", "Gt", "Ge", "Minimum"}) {
    r.SetCpuStridedInputs(op, 0b11);
  }
}

}  // namespace eagervm::kernels
