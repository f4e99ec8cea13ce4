// Min over everything (scalar(0) == -1) or along one axis: the input seen as
// [outer, n, inner], n >= 1 (checked by the op). NaN propagates.
#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

template <typename T>
T MinOf(T a, T b) {
  return (a < b || a != a) ? a : b;
}

template <typename T>
struct MinReduce {
  static absl::Status Run(KernelContext& ctx) {
    const Shape& s = ctx.input_meta(0).shape;
    const int64_t axis = ctx.scalar(0).to<int64_t>();
    int64_t outer = 1, n = s.numel(), inner = 1;
    if (axis >= 0) {
      n = s[static_cast<int>(axis)];
      for (int d = 0; d < s.rank(); ++d) {
        if (d < axis) outer *= s[d];
        if (d > axis) inner *= s[d];
      }
    }
    const T* x = ctx.input<T>(0);
    T* out = ctx.output<T>(0);
    for (int64_t o = 0; o < outer; ++o) {
      T* orow = out + o * inner;
      const T* block = x + o * n * inner;
      for (int64_t i = 0; i < inner; ++i) orow[i] = block[i];
      for (int64_t k = 1; k < n; ++k) {
        const T* row = block + k * inner;
        for (int64_t i = 0; i < inner; ++i) orow[i] = MinOf(orow[i], row[i]);
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterMinCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<MinReduce>(r, builtin::kMin, kNumericDTypes);
  RegisterCpuTyped<MinReduce, uint8_t>(r, builtin::kMin);
}

}  // namespace eagervm::kernels
