// Registration of the CUDA reductions, Cast, RandomNormal, Transpose and
// MatMul (float32/float64 through cuBLAS with the stream's own handle;
// integers through a plain kernel, wrapping like the CPU).
#include <cublas_v2.h>

#include <cmath>

#include "device/cuda/kernel_resources.h"
#include "kernels/cuda/kernel_util.h"

namespace eagervm::kernels::cuda_impl {
namespace {

KernelFn ReduceKernel(cuda::ReduceKind kind) {
  return [kind](KernelContext& ctx) -> absl::Status {
    const TensorMeta& in = ctx.input_meta(0);
    const int64_t axis = ctx.scalar(0).to<int64_t>();  // normalised by the op; -1: everything
    int64_t outer = 1, n = in.shape.numel(), inner = 1;
    if (axis >= 0) {
      n = in.shape[static_cast<int>(axis)];
      for (int d = 0; d < in.shape.rank(); ++d) {
        if (d < axis) outer *= in.shape[d];
        if (d > axis) inner *= in.shape[d];
      }
    }
    const DT dt = ToDT(in.dtype);
    void* partials = nullptr;
    if (size_t bytes = cuda::ReducePartialsBytes(dt, kind, outer, n, inner); bytes > 0) {
      absl::StatusOr<void*> tmp =
          ctx.AllocateTemp(bytes);  // freed in stream order after the launch
      if (!tmp.ok()) return tmp.status();
      partials = *tmp;
    }
    return Launched(cuda::LaunchReduce(kind, dt, ctx.raw_output(0), ctx.raw_input(0), outer, n,
                                       inner, partials, StreamOf(ctx)),
                    "reduction kernel launch");
  };
}

uint64_t Finalize(uint64_t z) {  // the seed's mixing, as in the CPU kernel
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

absl::Status MatMul(KernelContext& ctx) {
  const TensorMeta& am = ctx.input_meta(0);
  const int64_t m = am.shape[0], k = am.shape[1], n = ctx.input_meta(1).shape[1];
  void* c = ctx.raw_output(0);
  cudaStream_t s = StreamOf(ctx);
  if (m == 0 || n == 0) return absl::OkStatus();
  if (k == 0) {  // an empty sum: zeros
    return Launched(cudaMemsetAsync(c, 0, static_cast<size_t>(m * n) * SizeOf(am.dtype), s),
                    "cudaMemsetAsync");
  }
  if (!IsFloating(am.dtype)) {
    return Launched(
        cuda::LaunchIntMatMul(ToDT(am.dtype), c, ctx.raw_input(0), ctx.raw_input(1), m, k, n, s),
        "MatMul kernel launch");
  }
  absl::StatusOr<cublasHandle_t> handle = device::cuda::CublasHandle(ctx);
  if (!handle.ok()) return handle.status();
  cublasHandle_t h = *handle;
  // cuBLAS takes int dimensions. ops::MatMul rejects larger ones on the
  // calling thread; this guards kernels called by other routes (graphs,
  // custom builders) instead of narrowing silently.
  constexpr int64_t kMaxDim = 2147483647;
  if (m > kMaxDim || k > kMaxDim || n > kMaxDim) {
    return absl::InvalidArgumentError("MatMul: a dimension is >= 2^31 (cuBLAS takes int)");
  }
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  const int im = static_cast<int>(m), ik = static_cast<int>(k), in = static_cast<int>(n);
  if (am.dtype == DType::kFloat32) {
    const float one = 1, zero = 0;
    return device::cuda::CublasStatus(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one,
                                                  static_cast<const float*>(ctx.raw_input(1)), in,
                                                  static_cast<const float*>(ctx.raw_input(0)), ik,
                                                  &zero, static_cast<float*>(c), in),
                                      "cublasSgemm");
  }
  const double one = 1, zero = 0;
  return device::cuda::CublasStatus(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one,
                                                static_cast<const double*>(ctx.raw_input(1)), in,
                                                static_cast<const double*>(ctx.raw_input(0)), ik,
                                                &zero, static_cast<double*>(c), in),
                                    "cublasDgemm");
}

}  // namespace

void RegisterMathKernels(internal::OpRegistry& r) {
  RegisterCuda(r, builtin::kSum, kNumericDTypes, ReduceKernel(cuda::ReduceKind::kSum));
  RegisterCuda(r, builtin::kMean, kFloatDTypes, ReduceKernel(cuda::ReduceKind::kMean));
  RegisterCuda(r, builtin::kMax, kNumericDTypes, ReduceKernel(cuda::ReduceKind::kMax));
  RegisterCuda(r, builtin::kCast, kEvery, [](KernelContext& ctx) {
    return Launched(cuda::LaunchCast(ToDT(ctx.input_meta(0).dtype), ToDT(ctx.output_meta(0).dtype),
                                     ctx.raw_output(0), ctx.raw_input(0),
                                     ctx.input_meta(0).shape.numel(), StreamOf(ctx)),
                    "Cast kernel launch");
  });
  RegisterCuda(r, builtin::kRandomNormal, kFloatDTypes, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.output_meta(0);
    const uint64_t key = Finalize(static_cast<uint64_t>(ctx.scalar(0).to<int64_t>()));
    return Launched(cuda::LaunchRandomNormal(ToDT(m.dtype), ctx.raw_output(0), m.shape.numel(), key,
                                             StreamOf(ctx)),
                    "RandomNormal kernel launch");
  });
  RegisterCuda(r, builtin::kRandomUniform, kFloatDTypes, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.output_meta(0);
    const uint64_t key = Finalize(static_cast<uint64_t>(ctx.scalar(0).to<int64_t>()));
    const double lo = std::get<double>(ctx.attrs().at("lo"));
    const double hi = std::get<double>(ctx.attrs().at("hi"));
    const double top =
        m.dtype == DType::kFloat32
            ? static_cast<double>(std::nextafter(static_cast<float>(hi), static_cast<float>(lo)))
            : std::nextafter(hi, lo);
    return Launched(cuda::LaunchRandomUniform(ToDT(m.dtype), ctx.raw_output(0), m.shape.numel(),
                                              key, lo, hi, top, StreamOf(ctx)),
                    "RandomUniform kernel launch");
  });
  RegisterCuda(r, builtin::kTranspose, kEvery, [](KernelContext& ctx) {
    const TensorMeta& m = ctx.input_meta(0);
    return Launched(cuda::LaunchTranspose(static_cast<int>(SizeOf(m.dtype)), ctx.raw_output(0),
                                          ctx.raw_input(0), m.shape[0], m.shape[1], StreamOf(ctx)),
                    "Transpose kernel launch");
  });
  RegisterCuda(r, builtin::kMatMul, kNumericDTypes, MatMul);
  // Strided views (ops/strided.h): the view's layout is in attrs {"shape",
  // "strides"}; its operand is the byte span it covers.
  for (const bool scatter : {false, true}) {
    RegisterCuda(r, scatter ? builtin::kStridedCopyInto : builtin::kStridedCopy, kEvery,
                 [scatter](KernelContext& ctx) {
                   const auto& shape = std::get<std::vector<int64_t>>(ctx.attrs().at("shape"));
                   const auto& strides = std::get<std::vector<int64_t>>(ctx.attrs().at("strides"));
                   cuda::StridedArgs args;
                   args.rank = static_cast<int>(shape.size());
                   int64_t n = 1;
                   for (size_t d = 0; d < shape.size(); ++d) {
                     args.dims[d] = shape[d];
                     args.strides[d] = strides[d];
                     n *= shape[d];
                   }
                   const TensorMeta& m = ctx.input_meta(0);
                   void* dst = scatter ? ctx.raw_mutable_input(0) : ctx.raw_output(0);
                   const void* src = scatter ? ctx.raw_input(1) : ctx.raw_input(0);
                   return Launched(
                       cuda::LaunchStridedCopy(static_cast<int>(SizeOf(m.dtype)), scatter, dst, src,
                                               args, n, StreamOf(ctx)),
                       "strided copy kernel launch");
                 });
  }
}

// The CUDA kernels of the built-in ops; called by RegisterBuiltinOps.
void RegisterElementwiseKernels(internal::OpRegistry& r);
void RegisterModelKernels(internal::OpRegistry& r);  // model_kernels.cc
void RegisterHalfKernels(internal::OpRegistry& r);   // half_kernels.cc: after the float32 ones
void RegisterCudaKernels(internal::OpRegistry& r) {
  RegisterElementwiseKernels(r);
  RegisterMathKernels(r);
  RegisterModelKernels(r);
  RegisterHalfKernels(r);
}

}  // namespace eagervm::kernels::cuda_impl
