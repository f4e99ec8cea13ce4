// Concat and Split along scalar(0)'s axis: the tensors seen as
// [outer, extent, inner]; each outer step copies one contiguous block per
// input (Concat) or output (Split).
#include <cstring>

#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

// Elements before `axis` (outer) and of one step along it (the block of one
// index of `axis` times the inner extent is shape[axis] * inner).
void OuterInner(const Shape& s, int64_t axis, int64_t* outer, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int d = 0; d < s.rank(); ++d) {
    if (d < axis) *outer *= s[d];
    if (d > axis) *inner *= s[d];
  }
}

template <typename T>
struct Concat {
  static absl::Status Run(KernelContext& ctx) {
    const int64_t axis = ctx.scalar(0).to<int64_t>();
    int64_t outer, inner;
    OuterInner(ctx.output_meta(0).shape, axis, &outer, &inner);
    const int64_t out_block = ctx.output_meta(0).shape[static_cast<int>(axis)] * inner;
    if (outer == 0 || out_block == 0) return absl::OkStatus();
    T* out = ctx.output<T>(0);
    int64_t offset = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const int64_t block = ctx.input_meta(i).shape[static_cast<int>(axis)] * inner;
      const T* x = ctx.input<T>(i);
      if (block > 0) {
        for (int64_t o = 0; o < outer; ++o) {
          std::memcpy(out + o * out_block + offset, x + o * block,
                      static_cast<size_t>(block) * sizeof(T));
        }
      }
      offset += block;
    }
    return absl::OkStatus();
  }
};

template <typename T>
struct Split {
  static absl::Status Run(KernelContext& ctx) {
    const int64_t axis = ctx.scalar(0).to<int64_t>();
    int64_t outer, inner;
    OuterInner(ctx.input_meta(0).shape, axis, &outer, &inner);
    const int64_t in_block = ctx.input_meta(0).shape[static_cast<int>(axis)] * inner;
    if (outer == 0 || in_block == 0) return absl::OkStatus();
    const T* x = ctx.input<T>(0);
    const int64_t block = in_block / ctx.num_outputs();
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      T* out = ctx.output<T>(i);
      for (int64_t o = 0; o < outer; ++o) {
        std::memcpy(out + o * block, x + o * in_block + i * block,
                    static_cast<size_t>(block) * sizeof(T));
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterConcatCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<Concat>(r, builtin::kConcat, kAllDTypes);
  RegisterCpu<Split>(r, builtin::kSplit, kAllDTypes);
  RegisterCpuTyped<Concat, uint8_t, Half, BFloat16>(r, builtin::kConcat);
  RegisterCpuTyped<Split, uint8_t, Half, BFloat16>(r, builtin::kSplit);
}

}  // namespace eagervm::kernels
