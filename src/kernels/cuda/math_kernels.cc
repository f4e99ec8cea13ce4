// Registration of the CUDA reductions (Sum Mean Max Min), Cast,
// RandomNormal, RandomUniform, Transpose, MatMul, MatMulTransposed and
// BatchMatMul (float32/float64 through cuBLAS with the stream's own handle;
// integers through a plain kernel, wrapping like the CPU).
#include <cublas_v2.h>

#include <algorithm>
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

// MatMulTransposed (2-D) and BatchMatMul (3-D): op(a) @ op(b), op a
// transpose where scalar(0) / scalar(1) say so. Floats: cuBLAS's transpose
// flags on the operands in place, one strided-batched GEMM; integers: a
// plain wrapping kernel that indexes the transposes.
absl::Status MatMulT(KernelContext& ctx) {
  const bool ta = ctx.scalar(0).to<bool>(), tb = ctx.scalar(1).to<bool>();
  const TensorMeta& am = ctx.input_meta(0);
  const Shape& as = am.shape;
  const Shape& bs = ctx.input_meta(1).shape;
  const int r = as.rank();  // 2 or 3, checked by the op
  const int64_t batch = r == 3 ? as[0] : 1;
  const int64_t m = ta ? as[r - 1] : as[r - 2], k = ta ? as[r - 2] : as[r - 1];
  const int64_t n = tb ? bs[r - 2] : bs[r - 1];
  void* c = ctx.raw_output(0);
  cudaStream_t s = StreamOf(ctx);
  if (batch == 0 || m == 0 || n == 0) return absl::OkStatus();
  if (k == 0) {  // empty sums: zeros
    return Launched(cudaMemsetAsync(c, 0, static_cast<size_t>(batch * m * n) * SizeOf(am.dtype), s),
                    "cudaMemsetAsync");
  }
  if (!IsFloating(am.dtype)) {
    return Launched(cuda::LaunchIntBatchMatMul(ToDT(am.dtype), c, ctx.raw_input(0),
                                               ctx.raw_input(1), batch, m, k, n, ta, tb, s),
                    "batched MatMul kernel launch");
  }
  constexpr int64_t kMaxInt = 2147483647;  // cuBLAS takes int; the ops reject more
  if (m > kMaxInt || k > kMaxInt || n > kMaxInt) {
    return absl::InvalidArgumentError("MatMul: a matrix dimension is >= 2^31 (cuBLAS takes int)");
  }
  absl::StatusOr<cublasHandle_t> handle = device::cuda::CublasHandle(ctx);
  if (!handle.ok()) return handle.status();
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, and a
  // row-major matrix is its column-major transpose: B comes first, each
  // operand transposed by cuBLAS exactly when the op transposes it.
  const int im = static_cast<int>(m), ik = static_cast<int>(k), in = static_cast<int>(n);
  const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int lda = ta ? im : ik, ldb = tb ? ik : in;  // the stored rows' lengths
  const long long sa = static_cast<long long>(m) * k, sb = static_cast<long long>(k) * n,
                  sc = static_cast<long long>(m) * n;
  const size_t es = SizeOf(am.dtype);
  const auto* a = static_cast<const unsigned char*>(ctx.raw_input(0));
  const auto* b = static_cast<const unsigned char*>(ctx.raw_input(1));
  auto* cc = static_cast<unsigned char*>(c);
  // batchCount is an int: more than 2^31 - 1 pairs go in several calls.
  for (int64_t done = 0; done < batch;) {
    const int count = static_cast<int>(std::min<int64_t>(batch - done, kMaxInt));
    const size_t off_a = static_cast<size_t>(done * sa) * es,
                 off_b = static_cast<size_t>(done * sb) * es,
                 off_c = static_cast<size_t>(done * sc) * es;
    absl::Status st;
    if (am.dtype == DType::kFloat32) {
      const float one = 1, zero = 0;
      st = device::cuda::CublasStatus(
          cublasSgemmStridedBatched(*handle, opb, opa, in, im, ik, &one,
                                    reinterpret_cast<const float*>(b + off_b), ldb, sb,
                                    reinterpret_cast<const float*>(a + off_a), lda, sa, &zero,
                                    reinterpret_cast<float*>(cc + off_c), in, sc, count),
          "cublasSgemmStridedBatched");
    } else {
      const double one = 1, zero = 0;
      st = device::cuda::CublasStatus(
          cublasDgemmStridedBatched(*handle, opb, opa, in, im, ik, &one,
                                    reinterpret_cast<const double*>(b + off_b), ldb, sb,
                                    reinterpret_cast<const double*>(a + off_a), lda, sa, &zero,
                                    reinterpret_cast<double*>(cc + off_c), in, sc, count),
          "cublasDgemmStridedBatched");
    }
    if (!st.ok()) return st;
    done += count;
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterMathKernels(internal::OpRegistry& r) {
  RegisterCuda(r, builtin::kSum, kNumericDTypes, ReduceKernel(cuda::ReduceKind::kSum));
  RegisterCuda(r, builtin::kMean, kFloatDTypes, ReduceKernel(cuda::ReduceKind::kMean));
  RegisterCuda(r, builtin::kMax, kNumericDTypes, ReduceKernel(cuda::ReduceKind::kMax));
  RegisterCuda(r, builtin::kMin, kNumericDTypes, ReduceKernel(cuda::ReduceKind::kMin));
  RegisterCuda(r, builtin::kMax, {DType::kUInt8}, ReduceKernel(cuda::ReduceKind::kMax));
  RegisterCuda(r, builtin::kMin, {DType::kUInt8}, ReduceKernel(cuda::ReduceKind::kMin));
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
  RegisterCuda(r, builtin::kMatMulTransposed, kNumericDTypes, MatMulT);
  RegisterCuda(r, builtin::kBatchMatMul, kNumericDTypes, MatMulT);
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
void RegisterModelKernels(internal::OpRegistry& r);   // model_kernels.cc
void RegisterConcatKernels(internal::OpRegistry& r);  // concat_kernels.cc
void RegisterIndexKernels(internal::OpRegistry& r);   // index_kernels.cc
void RegisterOptimKernels(internal::OpRegistry& r);   // optim_kernels.cc
void RegisterHalfKernels(internal::OpRegistry& r);    // half_kernels.cc: after the float32 ones
void RegisterCudaKernels(internal::OpRegistry& r) {
  RegisterElementwiseKernels(r);
  RegisterMathKernels(r);
  RegisterModelKernels(r);
  RegisterConcatKernels(r);
  RegisterIndexKernels(r);
  RegisterOptimKernels(r);
  RegisterHalfKernels(r);
}

}  // namespace eagervm::kernels::cuda_impl
