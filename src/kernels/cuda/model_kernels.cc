// Registration of the CUDA kernels of Eq Ne Lt Le Gt Ge, Minimum, Where, Abs,
// Pow, Softmax and LogSoftmax (model.cu), Gelu, LayerNorm, Argmax and Argmin
// (nn.cu). Dtypes match the CPU kernels'.
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/model_launchers.h"

namespace eagervm::kernels::cuda_impl {
namespace {

// Per-dim strides of `in` (right-aligned) broadcast to `out`, 0 where it repeats.
void StridesInto(const Shape& out, const Shape& in, int64_t* st) {
  int64_t stride = 1;
  const int shift = out.rank() - in.rank();
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int sd = d - shift;
    const int64_t dim = sd >= 0 ? in[sd] : 1;
    st[d] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
}

cuda::Broadcast3Args Plan3(const KernelContext& ctx) {
  cuda::Broadcast3Args p;
  const Shape& out = ctx.output_meta(0).shape;
  if (out.rank() == 0) {
    p.rank = 1;
    p.dims[0] = 1;
    return p;
  }
  p.rank = out.rank();
  for (int d = 0; d < out.rank(); ++d) p.dims[d] = out[d];
  for (int i = 0; i < ctx.num_inputs() && i < 3; ++i) {
    StridesInto(out, ctx.input_meta(i).shape, p.stride[i]);
  }
  return p;
}

KernelFn CompareKernel(cuda::CompareKind op) {
  return [op](KernelContext& ctx) {
    return Launched(cuda::LaunchCompare(op, ToDT(ctx.input_meta(0).dtype), ctx.raw_output(0),
                                        ctx.raw_input(0), ctx.raw_input(1), Plan3(ctx),
                                        ctx.output_meta(0).shape.numel(), StreamOf(ctx)),
                    "compare kernel launch");
  };
}

KernelFn SoftmaxKernel(bool log) {
  return [log](KernelContext& ctx) {
    const Shape& s = ctx.input_meta(0).shape;
    const int64_t axis = ctx.scalar(0).to<int64_t>();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < s.rank(); ++d) {
      if (d < axis) outer *= s[d];
      if (d > axis) inner *= s[d];
    }
    return Launched(
        cuda::LaunchSoftmax(ToDT(ctx.input_meta(0).dtype), log, ctx.raw_output(0), ctx.raw_input(0),
                            outer, s[static_cast<int>(axis)], inner, StreamOf(ctx)),
        "softmax kernel launch");
  };
}

// The input seen as [outer, n, inner] around axis `axis`.
void AroundAxis(const Shape& s, int64_t axis, int64_t* outer, int64_t* n, int64_t* inner) {
  *outer = *inner = 1;
  *n = s[static_cast<int>(axis)];
  for (int d = 0; d < s.rank(); ++d) {
    if (d < axis) *outer *= s[d];
    if (d > axis) *inner *= s[d];
  }
}

KernelFn ArgReduceKernel(bool max) {
  return [max](KernelContext& ctx) {
    int64_t outer, n, inner;
    AroundAxis(ctx.input_meta(0).shape, ctx.scalar(0).to<int64_t>(), &outer, &n, &inner);
    return Launched(cuda::LaunchArgReduce(max, ToDT(ctx.input_meta(0).dtype),
                                          static_cast<int64_t*>(ctx.raw_output(0)),
                                          ctx.raw_input(0), outer, n, inner, StreamOf(ctx)),
                    max ? "Argmax kernel launch" : "Argmin kernel launch");
  };
}

}  // namespace

void RegisterModelKernels(internal::OpRegistry& r) {
  RegisterCuda(r, builtin::kEq, kAllDTypes, CompareKernel(cuda::CompareKind::kEq));
  RegisterCuda(r, builtin::kNe, kAllDTypes, CompareKernel(cuda::CompareKind::kNe));
  RegisterCuda(r, builtin::kLt, kAllDTypes, CompareKernel(cuda::CompareKind::kLt));
  RegisterCuda(r, builtin::kLe, kAllDTypes, CompareKernel(cuda::CompareKind::kLe));
  RegisterCuda(r, builtin::kGt, kAllDTypes, CompareKernel(cuda::CompareKind::kGt));
  RegisterCuda(r, builtin::kGe, kAllDTypes, CompareKernel(cuda::CompareKind::kGe));
  RegisterCuda(r, builtin::kMinimum, kNumericDTypes, CompareKernel(cuda::CompareKind::kMin));
  RegisterCuda(r, builtin::kWhere, kAllDTypes, [](KernelContext& ctx) {
    const TensorMeta& om = ctx.output_meta(0);
    return Launched(
        cuda::LaunchWhere(ToDT(om.dtype), ctx.raw_output(0),
                          static_cast<const bool*>(ctx.raw_input(0)), ctx.raw_input(1),
                          ctx.raw_input(2), Plan3(ctx), om.shape.numel(), StreamOf(ctx)),
        "Where kernel launch");
  });
  RegisterCuda(r, builtin::kAbs, kNumericDTypes, [](KernelContext& ctx) {
    const TensorMeta& om = ctx.output_meta(0);
    return Launched(cuda::LaunchAbs(ToDT(om.dtype), ctx.raw_output(0), ctx.raw_input(0),
                                    om.shape.numel(), StreamOf(ctx)),
                    "Abs kernel launch");
  });
  RegisterCuda(r, builtin::kPow, kFloatDTypes, [](KernelContext& ctx) {
    const TensorMeta& om = ctx.output_meta(0);
    return Launched(cuda::LaunchPow(ToDT(om.dtype), ctx.raw_output(0), ctx.raw_input(0),
                                    ctx.scalar(0).to<double>(), om.shape.numel(), StreamOf(ctx)),
                    "Pow kernel launch");
  });
  RegisterCuda(r, builtin::kSoftmax, kFloatDTypes, SoftmaxKernel(false));
  RegisterCuda(r, builtin::kLogSoftmax, kFloatDTypes, SoftmaxKernel(true));
  for (const auto* op : {&builtin::kEq, &builtin::kNe, &builtin::kLt, &builtin::kLe, &builtin::kGt,
                         &builtin::kGe, &builtin::kMinimum, &builtin::kWhere, &builtin::kAbs}) {
    const KernelFn* f = r.MustFind(op->name).FindKernel(DeviceType::kCUDA, DType::kInt32);
    if (f != nullptr) RegisterCuda(r, *op, kUInt8, *f);  // the same kernels on uint8
  }
  RegisterCuda(r, builtin::kGelu, kFloatDTypes, [](KernelContext& ctx) {
    const TensorMeta& om = ctx.output_meta(0);
    return Launched(cuda::LaunchGelu(ToDT(om.dtype), ctx.scalar(0).to<bool>(), ctx.raw_output(0),
                                     ctx.raw_input(0), om.shape.numel(), StreamOf(ctx)),
                    "Gelu kernel launch");
  });
  RegisterCuda(r, builtin::kLayerNorm, kFloatDTypes, [](KernelContext& ctx) {
    const TensorMeta& im = ctx.input_meta(0);
    const int64_t d = im.shape[im.shape.rank() - 1];  // rank >= 1, checked by the op
    const int64_t rows = d == 0 ? 0 : im.shape.numel() / d;
    return Launched(
        cuda::LaunchLayerNorm(ToDT(im.dtype), ctx.raw_output(0), ctx.raw_input(0), ctx.raw_input(1),
                              ctx.raw_input(2), rows, d, ctx.scalar(0).to<double>(), StreamOf(ctx)),
        "LayerNorm kernel launch");
  });
  RegisterCuda(r, builtin::kArgmax, kNumericDTypes, ArgReduceKernel(true));
  RegisterCuda(r, builtin::kArgmin, kNumericDTypes, ArgReduceKernel(false));
  RegisterCuda(r, builtin::kArgmax, {DType::kUInt8}, ArgReduceKernel(true));
  RegisterCuda(r, builtin::kArgmin, {DType::kUInt8}, ArgReduceKernel(false));
}

}  // namespace eagervm::kernels::cuda_impl
