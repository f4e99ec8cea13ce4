// Unary elementwise kernels: contiguous loops over the whole tensor. Relu and
// Neg serve the integer dtypes too; the transcendental ones only float32/64.
#include <cmath>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

struct ReluFn {  // keeps NaN (x < 0 is false for it)
  template <typename T>
  static T Apply(T x) {
    return x < T{0} ? T{0} : x;
  }
};
struct NegFn {
  template <typename T>
  static T Apply(T x) {
    return WrapSub(T{0}, x);
  }
};
// The float-only functions are instantiated for every dtype (KernelFor's
// switch) but registered for float32/64 only; the casts are no-ops there and
// keep clang's -Werror quiet about the integer and bool instantiations.
struct ExpFn {
  template <typename T>
  static T Apply(T x) {
    return static_cast<T>(std::exp(x));
  }
};
struct LogFn {  // log(0) = -inf, log(x < 0) = NaN (IEEE, not an error)
  template <typename T>
  static T Apply(T x) {
    return static_cast<T>(std::log(x));
  }
};
// 1 / (1 + e^-x): exp overflows to inf for very negative x and the result is
// then exactly 0, so no special case is needed.
struct SigmoidFn {
  template <typename T>
  static T Apply(T x) {
    return T{1} / (T{1} + std::exp(-x));
  }
};
struct TanhFn {
  template <typename T>
  static T Apply(T x) {
    return static_cast<T>(std::tanh(x));
  }
};
struct SqrtFn {
  template <typename T>
  static T Apply(T x) {
    return static_cast<T>(std::sqrt(x));
  }
};

template <typename Fn>
struct Unary {
  template <typename T>
  struct Kernel {
    static absl::Status Run(KernelContext& ctx) {
      const T* x = ctx.input<T>(0);
      T* out = ctx.output<T>(0);
      const int64_t n = ctx.output_meta(0).shape.numel();
      for (int64_t i = 0; i < n; ++i) out[i] = Fn::Apply(x[i]);
      return absl::OkStatus();
    }
  };
};

}  // namespace

void RegisterUnaryCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Unary<ReluFn>::Kernel>(r, builtin::kRelu, kNumericTypes);
  RegisterCpu<Unary<NegFn>::Kernel>(r, builtin::kNeg, kNumericTypes);
  RegisterCpu<Unary<ExpFn>::Kernel>(r, builtin::kExp, kFloatTypes);
  RegisterCpu<Unary<LogFn>::Kernel>(r, builtin::kLog, kFloatTypes);
  RegisterCpu<Unary<SigmoidFn>::Kernel>(r, builtin::kSigmoid, kFloatTypes);
  RegisterCpu<Unary<TanhFn>::Kernel>(r, builtin::kTanh, kFloatTypes);
  RegisterCpu<Unary<SqrtFn>::Kernel>(r, builtin::kSqrt, kFloatTypes);
}

}  // namespace eagervm::kernels
