// Binary elementwise kernels with numpy broadcasting (Add Sub Mul Div Maximum,
// AddInplace), and the tensor-scalar family (AddScalar ... MulScalarInplace).
#include <type_traits>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/strided.h"
#include "kernels/cpu/strided_rows.h"
#include "kernels/cpu/transposed_tiles.h"
#include "kernels/cpu/vec_exp.h"
#include "ops/strided.h"

namespace eagervm::kernels {
namespace {

// Integer division by zero is a runtime error (not SIGFPE): checked before any
// element is written, so the output is never half computed.
template <typename Op, typename T>
absl::Status CheckDivisor(const T* b, int64_t n) {
  if constexpr (std::is_same_v<Op, DivOp> && kIsInt<T>) {
    for (int64_t i = 0; i < n; ++i) {
      if (b[i] == 0) return absl::InvalidArgumentError("integer division by zero");
    }
  }
  return absl::OkStatus();
}

// out = Op(a, b) where a and b broadcast to out's shape. `out` may be `a`.
template <typename Op, typename T>
absl::Status Broadcast(T* out, const Shape& out_shape, const T* a, const Shape& a_shape, const T* b,
                       const Shape& b_shape) {
  const int64_t n = out_shape.numel();
  if (n == 0) return absl::OkStatus();
  absl::Status s = CheckDivisor<Op>(b, b_shape.numel());
  if (!s.ok()) return s;
  const bool a_full = a_shape.numel() == n, b_full = b_shape.numel() == n;
  if (a_full && b_full && a_shape == b_shape) {
    BinaryRow<Op>(out, a, b, n, 1, 1);  // same shapes: one contiguous loop
  } else if (a_full && b_shape.numel() == 1) {
    BinaryRow<Op>(out, a, b, n, 1, 0);  // tensor op scalar
  } else if (b_full && a_shape.numel() == 1) {
    BinaryRow<Op>(out, a, b, n, 0, 1);
  } else {
    const BroadcastPlan plan = MakeBroadcastPlan(out_shape, a_shape, b_shape);
    ForEachRow(plan, [&](int64_t o, int64_t ia, int64_t ib, int64_t len, int64_t sa, int64_t sb) {
      BinaryRow<Op>(out + o, a + ia, b + ib, len, sa, sb);
    });
  }
  return absl::OkStatus();
}

// BinaryRow for any steps (a strided view's row steps may exceed 1).
template <typename Op, typename T>
inline void BinaryRowAny(T* out, const T* a, const T* b, int64_t n, int64_t sa, int64_t sb) {
  if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1)) {
    BinaryRow<Op>(out, a, b, n, sa, sb);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(a[i * sa], b[i * sb]);
  }
}

// Ops whose 4-lane form is the same IEEE operation per lane.
template <typename Op>
constexpr bool kLaneOp = std::is_same_v<Op, AddOp> || std::is_same_v<Op, SubOp> ||
                         std::is_same_v<Op, MulOp> || std::is_same_v<Op, DivOp>;
template <typename Op>
vec::F4 LaneApply(vec::F4 a, vec::F4 b) {
  if constexpr (std::is_same_v<Op, AddOp>) return a + b;
  if constexpr (std::is_same_v<Op, SubOp>) return a - b;
  if constexpr (std::is_same_v<Op, MulOp>) return a * b;
  if constexpr (std::is_same_v<Op, DivOp>) return a / b;
}

template <typename Op>
constexpr transposed_tiles::LaneOp kTileOp =
    std::is_same_v<Op, AddOp>   ? transposed_tiles::LaneOp::kAdd
    : std::is_same_v<Op, SubOp> ? transposed_tiles::LaneOp::kSub
    : std::is_same_v<Op, MulOp> ? transposed_tiles::LaneOp::kMul
                                : transposed_tiles::LaneOp::kDiv;

// TransposedTiles for float Add/Sub/Mul/Div with a compact other operand:
// 8 x 8 blocks transposed in AVX2 registers where the CPU has AVX2
// (transposed_tiles.h); else 4 x 4 blocks of the transposed operand are
// loaded as 4 column vectors and transposed in registers (shuffles),
// 16 x 16 blocks at a time, the edges past a multiple of 4 element by
// element. Returns false where it does not apply.
template <typename Op, typename T>
bool TransposedBlocks4(const StridedPlan<3>& p, int t, T* out, const T* a, const T* b) {
  if constexpr (std::is_same_v<T, float> && kLaneOp<Op>) {
    if (p.strides[3 - t][1] != 1) return false;
    const int64_t m = p.dims[0], n = p.dims[1], m4 = m & ~int64_t{3}, n4 = n & ~int64_t{3};
    const float* src = t == 1 ? a : b;
    const float* other = t == 1 ? b : a;
    const int64_t cs = p.strides[t][1], orow = p.strides[3 - t][0], outrow = p.strides[0][0];
    transposed_tiles::Args args;
    args.m = m;
    args.n = n;
    args.src = src;
    args.src_col = cs;
    args.other = other;
    args.other_row = orow;
    args.out = out;
    args.out_row = outrow;
    args.src_first = t == 1;
    if (transposed_tiles::RunAvx2(kTileOp<Op>, args)) return true;
    constexpr int64_t kBlock = 16;
    for (int64_t r0 = 0; r0 < m4; r0 += kBlock) {
      const int64_t r1 = r0 + kBlock < m4 ? r0 + kBlock : m4;
      for (int64_t c0 = 0; c0 < n4; c0 += kBlock) {
        const int64_t c1 = c0 + kBlock < n4 ? c0 + kBlock : n4;
        for (int64_t c = c0; c < c1; c += 4) {
          for (int64_t r = r0; r < r1; r += 4) {
            // x_j[i] = element (r + i, c + j) of the view.
            const vec::F4 x0 = vec::Load(src + c * cs + r), x1 = vec::Load(src + (c + 1) * cs + r),
                          x2 = vec::Load(src + (c + 2) * cs + r),
                          x3 = vec::Load(src + (c + 3) * cs + r);
            const vec::F4 t0 = __builtin_shufflevector(x0, x1, 0, 4, 1, 5);
            const vec::F4 t1 = __builtin_shufflevector(x0, x1, 2, 6, 3, 7);
            const vec::F4 t2 = __builtin_shufflevector(x2, x3, 0, 4, 1, 5);
            const vec::F4 t3 = __builtin_shufflevector(x2, x3, 2, 6, 3, 7);
            const vec::F4 y[4] = {__builtin_shufflevector(t0, t2, 0, 1, 4, 5),
                                  __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
                                  __builtin_shufflevector(t1, t3, 0, 1, 4, 5),
                                  __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
            for (int i = 0; i < 4; ++i) {
              const vec::F4 o = vec::Load(other + (r + i) * orow + c);
              vec::Store(out + (r + i) * outrow + c,
                         t == 1 ? LaneApply<Op>(y[i], o) : LaneApply<Op>(o, y[i]));
            }
          }
        }
      }
    }
    // The edges: rows from m4 (every column), columns from n4 (rows below m4).
    auto one = [&](int64_t r, int64_t c) {
      const float x = src[c * cs + r], o = other[r * orow + c];
      out[r * outrow + c] = t == 1 ? Op::Apply(x, o) : Op::Apply(o, x);
    };
    for (int64_t r = m4; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) one(r, c);
    for (int64_t r = 0; r < m4; ++r)
      for (int64_t c = n4; c < n; ++c) one(r, c);
    return true;
  } else {
    return false;
  }
}

// out = Op(a, b) over a rank-2 plan (operands out, a, b) where operand `t`
// (1: a, 2: b) reads down the columns of its storage (step 1 between rows,
// more than 1 along a row: a transposed view) and the other operand steps 0
// or 1 along a row. A row walk would touch one of t's cache lines per element
// (and with a power-of-two stride, lines that evict each other); here each
// kTile x kTile tile of t is copied into a buffer by reading t's storage in
// order, then the tile's rows are plain BinaryRows. Same elements, same
// results.
template <typename Op, typename T>
void TransposedTiles(const StridedPlan<3>& p, int t, T* out, const T* a, const T* b) {
  if (TransposedBlocks4<Op>(p, t, out, a, b)) return;
  constexpr int64_t kTile = 32;
  alignas(64) T buf[kTile * kTile];
  const int64_t m = p.dims[0], n = p.dims[1];
  const T* src = t == 1 ? a : b;
  const T* other = t == 1 ? b : a;
  const int64_t col_step = p.strides[t][1];
  const int64_t other_row = p.strides[3 - t][0], other_step = p.strides[3 - t][1];
  const int64_t out_row = p.strides[0][0];
  for (int64_t r0 = 0; r0 < m; r0 += kTile) {
    const int64_t rh = m - r0 < kTile ? m - r0 : kTile;
    for (int64_t c0 = 0; c0 < n; c0 += kTile) {
      const int64_t cw = n - c0 < kTile ? n - c0 : kTile;
      for (int64_t c = 0; c < cw; ++c) {
        const T* column = src + (c0 + c) * col_step + r0;
        for (int64_t r = 0; r < rh; ++r) buf[r * kTile + c] = column[r];
      }
      for (int64_t r = 0; r < rh; ++r) {
        T* o = out + (r0 + r) * out_row + c0;
        const T* y = other + (r0 + r) * other_row + c0 * other_step;
        if (t == 1) {
          BinaryRow<Op>(o, buf + r * kTile, y, cw, 1, other_step);
        } else {
          BinaryRow<Op>(o, y, buf + r * kTile, cw, other_step, 1);
        }
      }
    }
  }
}

// The operand (1 or 2) TransposedTiles applies to in plan `p`, or 0.
inline int TransposedOperand(const StridedPlan<3>& p) {
  if (p.rank != 2 || p.strides[0][1] != 1 || p.dims[0] < 32 || p.dims[1] < 32) return 0;
  for (int t = 1; t <= 2; ++t) {
    const int64_t other = p.strides[3 - t][1];
    if (p.strides[t][0] == 1 && p.strides[t][1] > 1 && (other == 0 || other == 1)) return t;
  }
  return 0;
}

// out = Op(input ia, input ib), either of which may be a strided view
// (strided.h), both broadcast to out_shape (compact). `out` may be input ia.
template <typename Op, typename T>
absl::Status StridedBinary(KernelContext& ctx, T* out, const Shape& out_shape, int ia, int ib) {
  const InputLayout la = LayoutOfInput(ctx, ia), lb = LayoutOfInput(ctx, ib);
  const T* a = static_cast<const T*>(ctx.raw_input(ia));
  const T* b = static_cast<const T*>(ctx.raw_input(ib));
  if constexpr (std::is_same_v<Op, DivOp> && kIsInt<T>) {  // zero divisors first
    const int64_t* const sb_own[1] = {lb.strides.data()};
    bool zero = false;
    ForEachStridedRow(MakeStridedPlan<1>(lb.shape, sb_own),
                      [&](const int64_t* off, int64_t n, const int64_t* step) {
                        for (int64_t i = 0; i < n; ++i) zero |= b[off[0] + i * step[0]] == 0;
                      });
    if (zero) return absl::InvalidArgumentError("integer division by zero");
  }
  int64_t sa[Shape::kMaxDims], sb[Shape::kMaxDims];
  AlignStrides(la, out_shape, sa);
  AlignStrides(lb, out_shape, sb);
  const std::vector<int64_t> so = internal::CompactStrides(out_shape);
  const int64_t* const strides[3] = {so.data(), sa, sb};
  const StridedPlan<3> plan = MakeStridedPlan<3>(out_shape, strides);
  if (const int t = TransposedOperand(plan); t != 0) {
    TransposedTiles<Op>(plan, t, out, a, b);
    return absl::OkStatus();
  }
  auto row = [&](const int64_t* off, int64_t n, const int64_t* step) {
    BinaryRowAny<Op>(out + off[0], a + off[1], b + off[2], n, step[1], step[2]);
  };
  const void* const base[3] = {out, a, b};
  if (!ForEachPrefetchedRow<3>(plan, sizeof(T), base, row)) ForEachStridedRow(plan, row);
  return absl::OkStatus();
}

// out = Op(input i, s), input i possibly a strided view.
template <typename Op, typename T>
void StridedWithScalar(KernelContext& ctx, T* out, const Shape& out_shape, int i, T s) {
  const InputLayout l = LayoutOfInput(ctx, i);
  const T* x = static_cast<const T*>(ctx.raw_input(i));
  const std::vector<int64_t> so = internal::CompactStrides(out_shape);
  const int64_t* const strides[2] = {so.data(), l.strides.data()};
  const StridedPlan<2> plan = MakeStridedPlan<2>(out_shape, strides);
  if constexpr (std::is_same_v<T, float> && kLaneOp<Op>) {  // in registers
    if (IsTransposedPlan(plan)) {
      transposed_tiles::Args args = TransposedArgs(plan, out, x);
      args.other_kind = transposed_tiles::Other::kScalar;
      args.scalar = s;
      if (transposed_tiles::RunAvx2(kTileOp<Op>, args)) return;
    }
  }
  auto compact_row = [&](T* o, const T* xi, int64_t n) { BinaryRow<Op>(o, xi, &s, n, 1, 0); };
  if (ForEachTransposedRow<T>(plan, out, x, compact_row)) return;
  auto row = [&](const int64_t* off, int64_t n, const int64_t* step) {
    BinaryRowAny<Op>(out + off[0], x + off[1], &s, n, step[1], 0);
  };
  const void* const base[2] = {out, x};
  if (!ForEachPrefetchedRow<2>(plan, sizeof(T), base, row)) ForEachStridedRow(plan, row);
}

template <typename Op>
struct Binary {
  template <typename T>
  struct Kernel {  // out = Op(a, b)
    static absl::Status Run(KernelContext& ctx) {
      if (!NoStridedInputs(ctx)) [[unlikely]]
        return StridedBinary<Op, T>(ctx, ctx.output<T>(0), ctx.output_meta(0).shape, 0, 1);
      return Broadcast<Op>(ctx.output<T>(0), ctx.output_meta(0).shape, ctx.input<T>(0),
                           ctx.input_meta(0).shape, ctx.input<T>(1), ctx.input_meta(1).shape);
    }
  };
};

template <typename T>
struct AddInplace {  // self += other, other broadcast to self's shape
  static absl::Status Run(KernelContext& ctx) {
    T* self = ctx.mutable_input<T>(0);
    const Shape& shape = ctx.input_meta(0).shape;
    if (!NoStridedInputs(ctx)) [[unlikely]]  // `other` is a strided view
      return StridedBinary<AddOp, T>(ctx, self, shape, 0, 1);
    const Shape& other_shape = ctx.input_meta(1).shape;
    if (shape == other_shape) {  // the common case, without Broadcast's shape analysis
      BinaryRow<AddOp>(self, self, ctx.input<T>(1), shape.numel(), 1, 1);
      return absl::OkStatus();
    }
    return Broadcast<AddOp>(self, shape, self, shape, ctx.input<T>(1), other_shape);
  }
};

// The scalar was checked to be representable in T by the op (CheckScalarFits, ops/op_util.h).
template <typename Op>
struct WithScalar {
  template <typename T>
  struct Kernel {  // out = Op(x, scalar(0))
    static absl::Status Run(KernelContext& ctx) {
      const T s = ctx.scalar(0).to<T>();
      if (!NoStridedInputs(ctx)) [[unlikely]] {
        StridedWithScalar<Op, T>(ctx, ctx.output<T>(0), ctx.output_meta(0).shape, 0, s);
        return absl::OkStatus();
      }
      BinaryRow<Op>(ctx.output<T>(0), ctx.input<T>(0), &s, ctx.output_meta(0).shape.numel(), 1, 0);
      return absl::OkStatus();
    }
  };
};

template <typename T>
struct MulScalarInplace {  // self *= scalar(0)
  static absl::Status Run(KernelContext& ctx) {
    T* self = ctx.mutable_input<T>(0);
    const T s = ctx.scalar(0).to<T>();
    BinaryRow<MulOp>(self, self, &s, ctx.input_meta(0).shape.numel(), 1, 0);
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterBinaryCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Binary<AddOp>::Kernel>(r, builtin::kAdd, kNumericDTypes);
  RegisterCpu<Binary<SubOp>::Kernel>(r, builtin::kSub, kNumericDTypes);
  RegisterCpu<Binary<MulOp>::Kernel>(r, builtin::kMul, kNumericDTypes);
  RegisterCpu<Binary<DivOp>::Kernel>(r, builtin::kDiv, kNumericDTypes);
  RegisterCpu<Binary<MaxOp>::Kernel>(r, builtin::kMaximum, kNumericDTypes);
  RegisterCpu<AddInplace>(r, builtin::kAddInplace, kNumericDTypes);
  RegisterCpu<WithScalar<AddOp>::Kernel>(r, builtin::kAddScalar, kNumericDTypes);
  RegisterCpu<WithScalar<SubOp>::Kernel>(r, builtin::kSubScalar, kNumericDTypes);
  RegisterCpu<WithScalar<MulOp>::Kernel>(r, builtin::kMulScalar, kNumericDTypes);
  RegisterCpu<WithScalar<DivOp>::Kernel>(r, builtin::kDivScalar, kNumericDTypes);
  RegisterCpu<MulScalarInplace>(r, builtin::kMulScalarInplace, kNumericDTypes);
  RegisterCpuTyped<Binary<AddOp>::Kernel, uint8_t>(r, builtin::kAdd);
  RegisterCpuTyped<Binary<SubOp>::Kernel, uint8_t>(r, builtin::kSub);
  RegisterCpuTyped<Binary<MulOp>::Kernel, uint8_t>(r, builtin::kMul);
  RegisterCpuTyped<Binary<DivOp>::Kernel, uint8_t>(r, builtin::kDiv);
  RegisterCpuTyped<Binary<MaxOp>::Kernel, uint8_t>(r, builtin::kMaximum);
  RegisterCpuTyped<AddInplace, uint8_t>(r, builtin::kAddInplace);
  RegisterCpuTyped<WithScalar<AddOp>::Kernel, uint8_t>(r, builtin::kAddScalar);
  RegisterCpuTyped<WithScalar<SubOp>::Kernel, uint8_t>(r, builtin::kSubScalar);
  RegisterCpuTyped<WithScalar<MulOp>::Kernel, uint8_t>(r, builtin::kMulScalar);
  RegisterCpuTyped<WithScalar<DivOp>::Kernel, uint8_t>(r, builtin::kDivScalar);
  RegisterCpuTyped<MulScalarInplace, uint8_t>(r, builtin::kMulScalarInplace);
  // These read strided views natively (strided.h).
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Maximum"}) r.SetCpuStridedInputs(op, 0b11);
  r.SetCpuStridedInputs("AddInplace", 0b10);
  for (const char* op : {"AddScalar", "SubScalar", "MulScalar", "DivScalar"}) {
    r.SetCpuStridedInputs(op, 0b1);
  }
}

}  // namespace eagervm::kernels
