// Fill, copy and same-shape elementwise kernels: the minimal set the core VM
// is tested with. Contiguous loops the compiler vectorises.
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
    if (n > 0) std::memmove(ctx.mutable_input<T>(0), ctx.input<T>(1), static_cast<size_t>(n) * sizeof(T));
    return absl::OkStatus();
  }
};

template <typename T>
struct AddInplace {  // self += other (same shape)
  static absl::Status Run(KernelContext& ctx) {
    T* self = ctx.mutable_input<T>(0);
    const T* other = ctx.input<T>(1);
    const int64_t n = ctx.input_meta(0).shape.numel();
    for (int64_t i = 0; i < n; ++i) self[i] += other[i];
    return absl::OkStatus();
  }
};

template <typename T>
struct Add {  // out = a + b (same shape; broadcasting lives in the binary-op kernels)
  static absl::Status Run(KernelContext& ctx) {
    const T* a = ctx.input<T>(0);
    const T* b = ctx.input<T>(1);
    T* out = ctx.output<T>(0);
    const int64_t n = ctx.output_meta(0).shape.numel();
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
    return absl::OkStatus();
  }
};

template <typename T>
struct MulScalarInplace {  // self *= scalar(0)
  static absl::Status Run(KernelContext& ctx) {
    T* self = ctx.mutable_input<T>(0);
    const T s = ctx.scalar(0).to<T>();
    const int64_t n = ctx.input_meta(0).shape.numel();
    for (int64_t i = 0; i < n; ++i) self[i] *= s;
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterBasicCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Fill>(r, "Fill", kAllTypes);
  RegisterCpu<FillInplace>(r, "FillInplace", kAllTypes);
  RegisterCpu<Copy>(r, "Copy", kAllTypes);
  RegisterCpu<CopyInto>(r, "CopyInto", kAllTypes);
  RegisterCpu<AddInplace>(r, "AddInplace", kNumericTypes);
  RegisterCpu<Add>(r, "Add", kNumericTypes);
  RegisterCpu<MulScalarInplace>(r, "MulScalarInplace", kNumericTypes);
}

}  // namespace eagervm::kernels
