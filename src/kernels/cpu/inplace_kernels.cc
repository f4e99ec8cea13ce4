// SubInplace (self -= other), Axpy (self += alpha * x) and DivScalarInplace
// (self /= s). `other` / `x` broadcast into self's shape (checked by the op).
#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

// self[i] = f(self[i], other[broadcast i]) for every element of self.
template <typename T, typename F>
void IntoSelf(KernelContext& ctx, F f) {
  T* self = ctx.mutable_input<T>(0);
  const T* other = ctx.input<T>(1);
  const Shape& shape = ctx.input_meta(0).shape;
  const Shape& other_shape = ctx.input_meta(1).shape;
  const int64_t n = shape.numel();
  if (n == 0) return;
  auto row = [&](T* s, const T* o, int64_t len, int64_t so) {
    if (so != 0) {
      for (int64_t i = 0; i < len; ++i) s[i] = f(s[i], o[i]);
    } else {
      const T y = o[0];
      for (int64_t i = 0; i < len; ++i) s[i] = f(s[i], y);
    }
  };
  if (shape == other_shape) {
    row(self, other, n, 1);
    return;
  }
  const BroadcastPlan plan = MakeBroadcastPlan(shape, shape, other_shape);
  ForEachRow(plan, [&](int64_t o, int64_t, int64_t ib, int64_t len, int64_t, int64_t sb) {
    row(self + o, other + ib, len, sb);
  });
}

template <typename T>
struct SubInplace {
  static absl::Status Run(KernelContext& ctx) {
    IntoSelf<T>(ctx, [](T a, T b) { return WrapSub(a, b); });
    return absl::OkStatus();
  }
};

template <typename T>
struct Axpy {
  static absl::Status Run(KernelContext& ctx) {
    const T alpha = ctx.scalar(0).to<T>();
    IntoSelf<T>(ctx, [alpha](T a, T b) { return WrapAdd(a, WrapMul(alpha, b)); });
    return absl::OkStatus();
  }
};

template <typename T>
struct DivScalarInplace {  // integer zero divisors are rejected by the op
  static absl::Status Run(KernelContext& ctx) {
    T* self = ctx.mutable_input<T>(0);
    const T s = ctx.scalar(0).to<T>();
    BinaryRow<DivOp>(self, self, &s, ctx.input_meta(0).shape.numel(), 1, 0);
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterInplaceCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<SubInplace>(r, builtin::kSubInplace, kNumericDTypes);
  RegisterCpu<Axpy>(r, builtin::kAxpy, kNumericDTypes);
  RegisterCpu<DivScalarInplace>(r, builtin::kDivScalarInplace, kNumericDTypes);
  RegisterCpuTyped<SubInplace, uint8_t>(r, builtin::kSubInplace);
  RegisterCpuTyped<Axpy, uint8_t>(r, builtin::kAxpy);
  RegisterCpuTyped<DivScalarInplace, uint8_t>(r, builtin::kDivScalarInplace);
}

}  // namespace eagervm::kernels
