// Binary elementwise kernels with numpy broadcasting (Add Sub Mul Div Maximum,
// AddInplace), and the tensor-scalar family (AddScalar ... MulScalarInplace).
#include <type_traits>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"

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

template <typename Op>
struct Binary {
  template <typename T>
  struct Kernel {  // out = Op(a, b)
    static absl::Status Run(KernelContext& ctx) {
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
  RegisterCpu<Binary<AddOp>::Kernel>(r, builtin::kAdd, kNumericTypes);
  RegisterCpu<Binary<SubOp>::Kernel>(r, builtin::kSub, kNumericTypes);
  RegisterCpu<Binary<MulOp>::Kernel>(r, builtin::kMul, kNumericTypes);
  RegisterCpu<Binary<DivOp>::Kernel>(r, builtin::kDiv, kNumericTypes);
  RegisterCpu<Binary<MaxOp>::Kernel>(r, builtin::kMaximum, kNumericTypes);
  RegisterCpu<AddInplace>(r, builtin::kAddInplace, kNumericTypes);
  RegisterCpu<WithScalar<AddOp>::Kernel>(r, builtin::kAddScalar, kNumericTypes);
  RegisterCpu<WithScalar<SubOp>::Kernel>(r, builtin::kSubScalar, kNumericTypes);
  RegisterCpu<WithScalar<MulOp>::Kernel>(r, builtin::kMulScalar, kNumericTypes);
  RegisterCpu<WithScalar<DivOp>::Kernel>(r, builtin::kDivScalar, kNumericTypes);
  RegisterCpu<MulScalarInplace>(r, builtin::kMulScalarInplace, kNumericTypes);
}

}  // namespace eagervm::kernels
