// Binary elementwise kernels with numpy broadcasting (Add Sub Mul Div Maximum,
// AddInplace), and the tensor-scalar family (AddScalar ... MulScalarInplace).
#include <type_traits>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/strided.h"
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
  ForEachStridedRow(MakeStridedPlan<3>(out_shape, strides),
                    [&](const int64_t* off, int64_t n, const int64_t* step) {
                      BinaryRowAny<Op>(out + off[0], a + off[1], b + off[2], n, step[1], step[2]);
                    });
  return absl::OkStatus();
}

// out = Op(input i, s), input i possibly a strided view.
template <typename Op, typename T>
void StridedWithScalar(KernelContext& ctx, T* out, const Shape& out_shape, int i, T s) {
  const InputLayout l = LayoutOfInput(ctx, i);
  const T* x = static_cast<const T*>(ctx.raw_input(i));
  const std::vector<int64_t> so = internal::CompactStrides(out_shape);
  const int64_t* const strides[2] = {so.data(), l.strides.data()};
  ForEachStridedRow(MakeStridedPlan<2>(out_shape, strides),
                    [&](const int64_t* off, int64_t n, const int64_t* step) {
                      BinaryRowAny<Op>(out + off[0], x + off[1], &s, n, step[1], 0);
                    });
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
