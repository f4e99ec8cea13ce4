// Fill and copy kernels (every dtype). The arithmetic lives in
// binary_kernels.cc, unary_kernels.cc and friends.
#include <cstring>

#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

template <typename T>
struct Fill {  // out = scalar(0)
  static absl::Status Run(KernelContext& ctx) {
    T* out = ctx.output<T>(0);
    const T v = ctx.scalar(0).to<T>();
    const int64_t n = ctx.output_meta(0).shape.numel();
    for (int64_t i = 0; i < n; ++i) out[i] = v;
    return absl::OkStatus();
  }
};

template <typename T>
struct FillInplace {  // self = scalar(0)
  static absl::Status Run(KernelContext& ctx) {
    T* self = ctx.mutable_input<T>(0);
    const T v = ctx.scalar(0).to<T>();
    const int64_t n = ctx.input_meta(0).shape.numel();
    for (int64_t i = 0; i < n; ++i) self[i] = v;
    return absl::OkStatus();
  }
};

template <typename T>
struct Copy {  // out = in
  static absl::Status Run(KernelContext& ctx) {
    const int64_t n = ctx.input_meta(0).shape.numel();
    if (n > 0) std::memmove(ctx.output<T>(0), ctx.input<T>(0), static_cast<size_t>(n) * sizeof(T));
    return absl::OkStatus();
  }
};

template <typename T>
struct CopyInto {  // self = other
  static absl::Status Run(KernelContext& ctx) {
    const int64_t n = ctx.input_meta(0).shape.numel();
    if (n > 0)
      std::memmove(ctx.mutable_input<T>(0), ctx.input<T>(1), static_cast<size_t>(n) * sizeof(T));
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterBasicCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Fill>(r, builtin::kFill, kAllDTypes);
  RegisterCpu<FillInplace>(r, builtin::kFillInplace, kAllDTypes);
  RegisterCpu<Copy>(r, builtin::kCopy, kAllDTypes);
  RegisterCpu<CopyInto>(r, builtin::kCopyInto, kAllDTypes);
  RegisterCpuTyped<Fill, uint8_t, Half, BFloat16>(r, builtin::kFill);
  RegisterCpuTyped<FillInplace, uint8_t, Half, BFloat16>(r, builtin::kFillInplace);
  RegisterCpuTyped<Copy, uint8_t, Half, BFloat16>(r, builtin::kCopy);
  RegisterCpuTyped<CopyInto, uint8_t, Half, BFloat16>(r, builtin::kCopyInto);
}

}  // namespace eagervm::kernels
