// Registration of the CUDA elementwise kernels: Fill, FillInplace, Copy,
// CopyInto, the binary family with broadcasting (Add ... Maximum,
// AddInplace, SubInplace, Axpy), the tensor-scalar family (with
// MulScalarInplace, DivScalarInplace) and the unary ops. The dtypes match
// the CPU kernels'.
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/model_launchers.h"

namespace eagervm::kernels::cuda_impl {
namespace {

// Numpy broadcasting of `a` and `b` to `out`, as per-dim strides (0 where an
// input repeats). Shapes were checked by the op on the calling thread.
cuda::BroadcastArgs PlanBroadcast(const Shape& out, const Shape& a, const Shape& b) {
  cuda::BroadcastArgs p;
  if (a == out && b == out) {
    p.rank = 1;
    p.dims[0] = out.numel();
    p.stride_a[0] = p.stride_b[0] = 1;
    return p;
  }
  p.rank = out.rank() == 0 ? 1 : out.rank();
  if (out.rank() == 0) {
    p.dims[0] = 1;
    return p;
  }
  auto strides = [&](const Shape& s, int64_t* st) {
    int64_t stride = 1;
    const int shift = out.rank() - s.rank();
    for (int d = out.rank() - 1; d >= 0; --d) {
      const int sd = d - shift;
      const int64_t dim = sd >= 0 ? s[sd] : 1;
      st[d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  };
  for (int d = 0; d < out.rank(); ++d) p.dims[d] = out[d];
  strides(a, p.stride_a);
  strides(b, p.stride_b);
  return p;
}

KernelFn BinaryKernel(cuda::BinaryKind op) {
  return [op](KernelContext& ctx) {
    const TensorMeta& om = ctx.output_meta(0);
    const cuda::BroadcastArgs p =
        PlanBroadcast(om.shape, ctx.input_meta(0).shape, ctx.input_meta(1).shape);
    return Launched(cuda::LaunchBinary(op, ToDT(om.dtype), ctx.raw_output(0), ctx.raw_input(0),
                                       ctx.raw_input(1), p, om.shape.numel(), StreamOf(ctx)),
                    "binary kernel launch");
  };
}

// self = self op other, other broadcast to self's shape.
KernelFn InplaceBinaryKernel(cuda::BinaryKind op, const char* what) {
  return [op, what](KernelContext& ctx) {
    const TensorMeta& m = ctx.input_meta(0);
    const cuda::BroadcastArgs p = PlanBroadcast(m.shape, m.shape, ctx.input_meta(1).shape);
    return Launched(
        cuda::LaunchBinary(op, ToDT(m.dtype), ctx.raw_mutable_input(0), ctx.raw_mutable_input(0),
                           ctx.raw_input(1), p, m.shape.numel(), StreamOf(ctx)),
        what);
  };
}

KernelFn ScalarKernel(cuda::BinaryKind op) {
  return [op](KernelContext& ctx) {
    const TensorMeta& om = ctx.output_meta(0);
    return Launched(cuda::LaunchBinaryScalar(op, ToDT(om.dtype), ctx.raw_output(0),
                                             ctx.raw_input(0), ToScalarArg(ctx.scalar(0), om.dtype),
                                             om.shape.numel(), StreamOf(ctx)),
                    "scalar kernel launch");
  };
}

KernelFn UnaryKernel(cuda::UnaryKind op) {
  return [op](KernelContext& ctx) {
    const TensorMeta& om = ctx.output_meta(0);
    return Launched(cuda::LaunchUnary(op, ToDT(om.dtype), ctx.raw_output(0), ctx.raw_input(0),
                                      om.shape.numel(), StreamOf(ctx)),
                    "unary kernel launch");
  };
}

absl::Status CopyBytes(void* dst, const void* src, const TensorMeta& m, cudaStream_t s) {
  const size_t bytes = static_cast<size_t>(m.shape.numel()) * SizeOf(m.dtype);
  if (bytes == 0 || dst == src) return absl::OkStatus();
  return Launched(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
}

}  // namespace

void RegisterElementwiseKernels(internal::OpRegistry& r) {
  RegisterCuda(r, builtin::kFill, kEvery, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.output_meta(0);
    return Launched(cuda::LaunchFill(ToDT(m.dtype), ctx.raw_output(0), m.shape.numel(),
                                     ToScalarArg(ctx.scalar(0), m.dtype), StreamOf(ctx)),
                    "Fill kernel launch");
  });
  RegisterCuda(r, builtin::kFillInplace, kEvery, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.input_meta(0);
    return Launched(cuda::LaunchFill(ToDT(m.dtype), ctx.raw_mutable_input(0), m.shape.numel(),
                                     ToScalarArg(ctx.scalar(0), m.dtype), StreamOf(ctx)),
                    "FillInplace kernel launch");
  });
  RegisterCuda(r, builtin::kCopy, kEvery, [](KernelContext& ctx) {
    return CopyBytes(ctx.raw_output(0), ctx.raw_input(0), ctx.input_meta(0), StreamOf(ctx));
  });
  RegisterCuda(r, builtin::kCopyInto, kEvery, [](KernelContext& ctx) {
    return CopyBytes(ctx.raw_mutable_input(0), ctx.raw_input(1), ctx.input_meta(0), StreamOf(ctx));
  });

  using BK = cuda::BinaryKind;
  RegisterCuda(r, builtin::kAdd, kNumericDTypes, BinaryKernel(BK::kAdd));
  RegisterCuda(r, builtin::kSub, kNumericDTypes, BinaryKernel(BK::kSub));
  RegisterCuda(r, builtin::kMul, kNumericDTypes, BinaryKernel(BK::kMul));
  RegisterCuda(r, builtin::kDiv, kNumericDTypes, BinaryKernel(BK::kDiv));
  RegisterCuda(r, builtin::kMaximum, kNumericDTypes, BinaryKernel(BK::kMax));
  RegisterCuda(r, builtin::kAddInplace, kNumericDTypes,
               InplaceBinaryKernel(BK::kAdd, "AddInplace kernel launch"));
  RegisterCuda(r, builtin::kSubInplace, kNumericDTypes,
               InplaceBinaryKernel(BK::kSub, "SubInplace kernel launch"));
  RegisterCuda(r, builtin::kAxpy, kNumericDTypes, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.input_meta(0);  // x broadcasts to self's shape
    const cuda::BroadcastArgs p = PlanBroadcast(m.shape, m.shape, ctx.input_meta(1).shape);
    return Launched(
        cuda::LaunchAxpy(ToDT(m.dtype), ctx.raw_mutable_input(0), ctx.raw_input(1),
                         ToScalarArg(ctx.scalar(0), m.dtype), p, m.shape.numel(), StreamOf(ctx)),
        "Axpy kernel launch");
  });
  RegisterCuda(r, builtin::kAddScalar, kNumericDTypes, ScalarKernel(BK::kAdd));
  RegisterCuda(r, builtin::kSubScalar, kNumericDTypes, ScalarKernel(BK::kSub));
  RegisterCuda(r, builtin::kMulScalar, kNumericDTypes, ScalarKernel(BK::kMul));
  RegisterCuda(r, builtin::kDivScalar, kNumericDTypes, ScalarKernel(BK::kDiv));
  RegisterCuda(r, builtin::kMulScalarInplace, kNumericDTypes, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.input_meta(0);
    return Launched(cuda::LaunchBinaryScalar(
                        BK::kMul, ToDT(m.dtype), ctx.raw_mutable_input(0), ctx.raw_mutable_input(0),
                        ToScalarArg(ctx.scalar(0), m.dtype), m.shape.numel(), StreamOf(ctx)),
                    "MulScalarInplace kernel launch");
  });
  // Integer zero divisors are rejected by the op on the calling thread.
  RegisterCuda(r, builtin::kDivScalarInplace, kNumericDTypes, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.input_meta(0);
    return Launched(cuda::LaunchBinaryScalar(
                        BK::kDiv, ToDT(m.dtype), ctx.raw_mutable_input(0), ctx.raw_mutable_input(0),
                        ToScalarArg(ctx.scalar(0), m.dtype), m.shape.numel(), StreamOf(ctx)),
                    "DivScalarInplace kernel launch");
  });

  // uint8, wrapping as on the CPU (a zero integer divisor gives 0 here: docs/cuda.md).
  for (const auto* op :
       {&builtin::kAdd, &builtin::kSub, &builtin::kMul, &builtin::kDiv, &builtin::kMaximum,
        &builtin::kAddInplace, &builtin::kAddScalar, &builtin::kSubScalar, &builtin::kMulScalar,
        &builtin::kDivScalar, &builtin::kMulScalarInplace, &builtin::kSubInplace, &builtin::kAxpy,
        &builtin::kDivScalarInplace}) {
    const KernelFn* f = r.MustFind(op->name).FindKernel(DeviceType::kCUDA, DType::kInt32);
    if (f != nullptr) RegisterCuda(r, *op, kUInt8, *f);
  }

  using UK = cuda::UnaryKind;
  RegisterCuda(r, builtin::kRelu, kNumericDTypes, UnaryKernel(UK::kRelu));
  RegisterCuda(r, builtin::kNeg, kNumericDTypes, UnaryKernel(UK::kNeg));
  RegisterCuda(r, builtin::kExp, kFloatDTypes, UnaryKernel(UK::kExp));
  RegisterCuda(r, builtin::kLog, kFloatDTypes, UnaryKernel(UK::kLog));
  RegisterCuda(r, builtin::kSigmoid, kFloatDTypes, UnaryKernel(UK::kSigmoid));
  RegisterCuda(r, builtin::kTanh, kFloatDTypes, UnaryKernel(UK::kTanh));
  RegisterCuda(r, builtin::kSqrt, kFloatDTypes, UnaryKernel(UK::kSqrt));
}

}  // namespace eagervm::kernels::cuda_impl
