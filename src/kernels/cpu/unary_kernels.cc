// Unary elementwise kernels: contiguous loops over the whole tensor. Relu and
// Neg serve the integer dtypes too; the transcendental ones only float32/64.
#include <cmath>
#include <type_traits>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/strided.h"
#include "kernels/cpu/strided_rows.h"
#include "kernels/cpu/vec_map_row.h"
#include "ops/strided.h"

namespace eagervm::kernels {
namespace {

// Relu and Neg of float32 rows through vec_map_row.h (the same operation
// per lane as Apply): 16 or 8 lanes where the CPU has them. The compiler's
// own loop is 4 lanes wide (the baseline ISA), and over short rows (a
// column Slice) it took 1.39x its time on the whole tensor, 8 lanes 1.07x.
struct ReluLanes {
  template <typename V>
  static void Lanes(V* v) {
    *v = *v < V{} ? V{} : *v;
  }
};
struct NegLanes {
  template <typename V>
  static void Lanes(V* v) {
    *v = V{} - *v;
  }
};
template <typename Lanes, typename T>
bool FloatRow(const T* x, T* out, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    vec::MapRow<Lanes>(x, out, n);
    return true;
  }
  return false;
}
struct ReluFn {  // keeps NaN (x < 0 is false for it)
  template <typename T>
  static T Apply(T x) {
    return x < T{0} ? T{0} : x;
  }
  template <typename T>
  static bool Row(const T* x, T* out, int64_t n) {
    return FloatRow<ReluLanes>(x, out, n);
  }
};
struct NegFn {
  template <typename T>
  static T Apply(T x) {
    return WrapSub(T{0}, x);
  }
  template <typename T>
  static bool Row(const T* x, T* out, int64_t n) {
    return FloatRow<NegLanes>(x, out, n);
  }
};
// The float-only functions are instantiated for every dtype (KernelFor's
// switch) but registered for float32/64 only; the casts are no-ops there and
// keep clang's -Werror quiet about the integer and bool instantiations.
// float32 rows go through vec_exp.h (within 2 ulp; vec_map_row.h: 8 lanes
// under AVX2, the same bits at every width and for the tail); float64
// through std::exp.
struct ExpLanes {
  template <typename V>
  static void Lanes(V* v) {
    vec::ExpInPlace(v);
  }
};
struct ExpFn {
  template <typename T>
  static T Apply(T x) {
    if constexpr (std::is_same_v<T, float>) return vec::Exp(x);
    return static_cast<T>(std::exp(x));
  }
  // A contiguous row at once, where there is a vector form.
  template <typename T>
  static bool Row(const T* x, T* out, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
      vec::MapRow<ExpLanes>(x, out, n);
      return true;
    }
    return false;
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

// Fn::Row(x, out, n) if Fn has one for T (a vector form): true if it ran.
template <typename Fn, typename T>
bool RowOf(const T* x, T* out, int64_t n) {
  if constexpr (requires { Fn::Row(x, out, n); }) {
    return Fn::Row(x, out, n);
  } else {
    return false;
  }
}

// Relu and Neg of a float32 transposed view, transposed in registers
// (transposed_tiles.h): true if it ran.
template <typename Fn, typename T>
bool TransposedLanes(const StridedPlan<2>& p, T* out, const T* x) {
  if constexpr (std::is_same_v<T, float> &&
                (std::is_same_v<Fn, ReluFn> || std::is_same_v<Fn, NegFn>)) {
    if (!IsTransposedPlan(p)) return false;
    constexpr transposed_tiles::LaneOp kOp = std::is_same_v<Fn, ReluFn>
                                                 ? transposed_tiles::LaneOp::kRelu
                                                 : transposed_tiles::LaneOp::kNeg;
    return transposed_tiles::RunAvx2(kOp, TransposedArgs(p, out, x));
  }
  return false;
}

template <typename Fn>
struct Unary {
  template <typename T>
  struct Kernel {
    static absl::Status Run(KernelContext& ctx) {
      const T* x = static_cast<const T*>(ctx.raw_input(0));
      T* out = ctx.output<T>(0);
      if (!NoStridedInputs(ctx)) [[unlikely]] {  // x is a strided view
        const Shape& shape = ctx.output_meta(0).shape;
        const InputLayout l = LayoutOfInput(ctx, 0);
        const std::vector<int64_t> so = internal::CompactStrides(shape);
        const int64_t* const strides[2] = {so.data(), l.strides.data()};
        const StridedPlan<2> plan = MakeStridedPlan<2>(shape, strides);
        auto compact_row = [](T* o, const T* xi, int64_t n) {
          if (RowOf<Fn>(xi, o, n)) return;
          for (int64_t i = 0; i < n; ++i) o[i] = Fn::Apply(xi[i]);
        };
        if (TransposedLanes<Fn>(plan, out, x) ||
            ForEachTransposedRow<T>(plan, out, x, compact_row)) {
          return absl::OkStatus();
        }
        auto strided_row = [&](const int64_t* off, int64_t n, const int64_t* step) {
          T* o = out + off[0];
          const T* xi = x + off[1];
          const int64_t sx = step[1];
          if (sx == 1) return compact_row(o, xi, n);
          for (int64_t i = 0; i < n; ++i) o[i] = Fn::Apply(xi[i * sx]);
        };
        const void* const base[2] = {out, x};
        if (!ForEachPrefetchedRow<2>(plan, sizeof(T), base, strided_row)) {
          ForEachStridedRow(plan, strided_row);
        }
        return absl::OkStatus();
      }
      const int64_t n = ctx.output_meta(0).shape.numel();
      if (RowOf<Fn>(x, out, n)) return absl::OkStatus();
      for (int64_t i = 0; i < n; ++i) out[i] = Fn::Apply(x[i]);
      return absl::OkStatus();
    }
  };
};

}  // namespace

void RegisterUnaryCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Unary<ReluFn>::Kernel>(r, builtin::kRelu, kNumericDTypes);
  RegisterCpu<Unary<NegFn>::Kernel>(r, builtin::kNeg, kNumericDTypes);
  RegisterCpu<Unary<ExpFn>::Kernel>(r, builtin::kExp, kFloatDTypes);
  RegisterCpu<Unary<LogFn>::Kernel>(r, builtin::kLog, kFloatDTypes);
  RegisterCpu<Unary<SigmoidFn>::Kernel>(r, builtin::kSigmoid, kFloatDTypes);
  RegisterCpu<Unary<TanhFn>::Kernel>(r, builtin::kTanh, kFloatDTypes);
  RegisterCpu<Unary<SqrtFn>::Kernel>(r, builtin::kSqrt, kFloatDTypes);
  // These read a strided view natively (strided.h).
  for (const char* op : {"Relu", "Neg", "Exp", "Log", "Sigmoid", "Tanh", "Sqrt"}) {
    r.SetCpuStridedInputs(op, 0b1);
  }
}

}  // namespace eagervm::kernels
