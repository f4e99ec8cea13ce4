#include "ops/widen.h"

#include <cstdint>
#include <type_traits>
#include <utility>

#include "base/str_cat.h"
#include "ops/half_convert.h"
#include "vm/kernel_args.h"

namespace eagervm::internal {
namespace {

template <typename H>
void ToFloat(const void* src, float* dst, int64_t n) {
  const H* s = static_cast<const H*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = s[i].ToFloat();
}
template <typename H>
void FromFloat(const float* src, void* dst, int64_t n) {
  H* d = static_cast<H*>(dst);
  if constexpr (std::is_same_v<H, Half>) {
    for (int64_t i = 0; i < n; ++i) d[i] = Half::FromBits(HalfBitsFromFloat(src[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = H(src[i]);
  }
}

absl::Status WidenOnCpu(KernelContext&, DType half, const void* src, float* dst, int64_t n) {
  if (half == DType::kFloat16)
    ToFloat<Half>(src, dst, n);
  else
    ToFloat<BFloat16>(src, dst, n);
  return absl::OkStatus();
}
absl::Status NarrowOnCpu(KernelContext&, DType half, const float* src, void* dst, int64_t n) {
  if (half == DType::kFloat16)
    FromFloat<Half>(src, dst, n);
  else
    FromFloat<BFloat16>(src, dst, n);
  return absl::OkStatus();
}

Scalar RoundedTo(DType half, const Scalar& s) {
  if (!s.is_double()) return s;
  const double v = s.to<double>();
  return Scalar(half == DType::kFloat16 ? static_cast<double>(Half(v).ToFloat())
                                        : static_cast<double>(BFloat16(v).ToFloat()));
}

absl::Status RunWidened(KernelContext& ctx, const KernelFn& f32, DType half, bool round_scalars,
                        const HalfConverter& convert) {
  KernelArgs& args = KernelContextAccess::Args(ctx);
  const uint32_t n_in = static_cast<uint32_t>(args.inputs.size());
  const uint32_t n_out = static_cast<uint32_t>(args.outputs.size());
  KernelArgs wide;
  for (int i = 0; i < KernelArgs::kMaxScalars; ++i) {
    wide.scalars[i] = round_scalars ? RoundedTo(half, args.scalars[i]) : args.scalars[i];
  }
  wide.attrs = args.attrs;
  wide.mutated_mask = args.mutated_mask;
  wide.stream = args.stream;
  wide.temp_region = args.temp_region;
  wide.metas.reserve(n_in + n_out);  // stable: pointers into it are taken below

  // A float32 operand in place of `op` if it holds `half`; `copy_in` fills it.
  auto widen = [&](const Operand& op, bool copy_in, Operand* out) -> absl::Status {
    *out = op;
    if (op.meta->dtype != half) return absl::OkStatus();
    TensorMeta meta = *op.meta;
    meta.dtype = DType::kFloat32;
    wide.metas.push_back(meta);
    out->meta = &wide.metas.back();
    const int64_t n = meta.shape.numel();
    out->offset = 0;
    // At least one element: an empty operand still gets a valid device pointer.
    absl::StatusOr<void*> p = ctx.AllocateTemp(static_cast<size_t>(n > 0 ? n : 1) * sizeof(float));
    if (!p.ok()) return p.status();
    out->data = *p;
    if (copy_in && n > 0) return convert.widen(ctx, half, op.data, static_cast<float*>(*p), n);
    return absl::OkStatus();
  };
  for (uint32_t i = 0; i < n_in; ++i) {
    Operand o;
    absl::Status s = widen(args.inputs[i], /*copy_in=*/true, &o);
    if (!s.ok()) return s;
    wide.inputs.push_back(o);
  }
  for (uint32_t i = 0; i < n_out; ++i) {
    Operand o;
    absl::Status s = widen(args.outputs[i], /*copy_in=*/false, &o);
    if (!s.ok()) return s;
    wide.outputs.push_back(o);
  }
  KernelContext wide_ctx = KernelContextAccess::Make(&wide);
  absl::Status s = f32(wide_ctx);
  // The inner kernel's own temporaries: freed with the call's.
  for (const KernelArgs::Temp& t : wide.temps) args.temps.push_back(t);
  wide.temps.clear();
  if (!s.ok()) return s;
  auto narrow = [&](const Operand& wide_op, const Operand& op) {
    const int64_t n = op.meta->shape.numel();
    if (op.meta->dtype != half || n == 0) return absl::OkStatus();
    return convert.narrow(ctx, half, static_cast<const float*>(wide_op.data), op.data, n);
  };
  for (uint32_t i = 0; i < n_out && s.ok(); ++i) s = narrow(wide.outputs[i], args.outputs[i]);
  for (uint32_t i = 0; i < n_in && s.ok(); ++i) {
    if (args.mutated_mask.has(i)) s = narrow(wide.inputs[i], args.inputs[i]);
  }
  return s;
}

}  // namespace

KernelFn WidenedKernel(const KernelFn* f32, DType half, bool round_scalars, HalfConverter convert) {
  return [f32, half, round_scalars, convert](KernelContext& ctx) {
    return RunWidened(ctx, *f32, half, round_scalars, convert);
  };
}

KernelFn WidenedCpuKernel(const KernelFn* f32, DType half, bool round_scalars) {
  return WidenedKernel(f32, half, round_scalars, HalfConverter{WidenOnCpu, NarrowOnCpu});
}

}  // namespace eagervm::internal
