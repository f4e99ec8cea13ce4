// Strided views on the CPU: StridedCopy (a compact copy of a view) and
// StridedCopyInto (a compact tensor written into a view's elements), and the
// layout helpers of kernels that read strided inputs natively (strided.h).
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/strided.h"
#include "kernels/cpu/strided_rows.h"
#include "ops/strided.h"

namespace eagervm::kernels {

InputLayout LayoutOfInput(const KernelContext& ctx, int i) {
  InputLayout l;
  const Attrs& attrs = ctx.attrs();
  if (!attrs.empty()) {
    auto shape = attrs.find(internal::StridedShapeAttr(i));
    auto strides = attrs.find(internal::StridedStridesAttr(i));
    if (shape != attrs.end() && strides != attrs.end()) {
      l.shape = Shape(absl::MakeConstSpan(std::get<std::vector<int64_t>>(shape->second)));
      l.strides = std::get<std::vector<int64_t>>(strides->second);
      l.strided = true;
      return l;
    }
  }
  l.shape = ctx.input_meta(i).shape;
  l.strides = internal::CompactStrides(l.shape);
  return l;
}

void AlignStrides(const InputLayout& in, const Shape& out, int64_t* aligned) {
  const int out_rank = static_cast<int>(out.dims().size());
  const int in_rank = static_cast<int>(in.shape.dims().size());
  for (int d = 0; d < out_rank; ++d) {
    const int di = d - (out_rank - in_rank);
    aligned[d] = di < 0 || in.shape[di] != out[d] ? 0 : in.strides[static_cast<size_t>(di)];
  }
}

namespace {

// The view's layout from attrs {"shape", "strides"}.
void ViewLayout(const KernelContext& ctx, Shape* shape, std::vector<int64_t>* strides) {
  const Attrs& a = ctx.attrs();
  *shape = Shape(absl::MakeConstSpan(std::get<std::vector<int64_t>>(a.at("shape"))));
  *strides = std::get<std::vector<int64_t>>(a.at("strides"));
}

template <typename T>
struct StridedCopy {  // out = the view of input 0 (its byte span) given by attrs
  static absl::Status Run(KernelContext& ctx) {
    Shape shape;
    std::vector<int64_t> strides;
    ViewLayout(ctx, &shape, &strides);
    const std::vector<int64_t> compact = internal::CompactStrides(shape);
    const int64_t* const s[2] = {compact.data(), strides.data()};
    const StridedPlan<2> plan = MakeStridedPlan<2>(shape, s);
    T* out = static_cast<T*>(ctx.raw_output(0));
    const T* in = static_cast<const T*>(ctx.raw_input(0));
    if (TransposedCopy<T>(plan, out, in)) return absl::OkStatus();
    ForEachStridedRow(plan, [&](const int64_t* off, int64_t n, const int64_t* step) {
      T* o = out + off[0];
      const T* x = in + off[1];
      const int64_t sx = step[1];
      if (sx == 1) {
        std::memcpy(o, x, static_cast<size_t>(n) * sizeof(T));
      } else {
        for (int64_t j = 0; j < n; ++j) o[j] = x[j * sx];
      }
    });
    return absl::OkStatus();
  }
};

template <typename T>
struct StridedCopyInto {  // the view of input 0 (its byte span) = input 1 (compact)
  static absl::Status Run(KernelContext& ctx) {
    Shape shape;
    std::vector<int64_t> strides;
    ViewLayout(ctx, &shape, &strides);
    const std::vector<int64_t> compact = internal::CompactStrides(shape);
    const int64_t* const s[2] = {strides.data(), compact.data()};
    const StridedPlan<2> plan = MakeStridedPlan<2>(shape, s);
    T* dst = static_cast<T*>(ctx.raw_mutable_input(0));
    const T* src = static_cast<const T*>(ctx.raw_input(1));
    if (TransposedCopy<T>(SwapDims(plan), dst, src)) return absl::OkStatus();
    ForEachStridedRow(plan, [&](const int64_t* off, int64_t n, const int64_t* step) {
      T* d = dst + off[0];
      const T* x = src + off[1];
      const int64_t sd = step[0];
      if (sd == 1) {
        std::memcpy(d, x, static_cast<size_t>(n) * sizeof(T));
      } else {
        for (int64_t j = 0; j < n; ++j) d[j * sd] = x[j];
      }
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterStridedCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<StridedCopy>(r, builtin::kStridedCopy, kAllDTypes);
  RegisterCpu<StridedCopyInto>(r, builtin::kStridedCopyInto, kAllDTypes);
  RegisterCpuTyped<StridedCopy, uint8_t, Half, BFloat16>(r, builtin::kStridedCopy);
  RegisterCpuTyped<StridedCopyInto, uint8_t, Half, BFloat16>(r, builtin::kStridedCopyInto);
}

}  // namespace eagervm::kernels
