// Registration of the CUDA kernels of IndexSelect and OneHot (every dtype),
// IndexAdd (int32, int64, float32, float64) and CrossEntropy (float32,
// float64, float16, bfloat16): the CPU kernels' dtypes and results
// (kernels/cpu/index_kernels.cc, softmax_kernels.cc). Each checks its
// indices first (index_check.h: waits for the stream) and fails, as the CPU
// kernel does, with the first one out of range, before writing anything.
#include "base/str_cat.h"
#include "kernels/cuda/index_check.h"
#include "kernels/cuda/index_launchers.h"
#include "kernels/cuda/kernel_util.h"

namespace eagervm::kernels::cuda_impl {
namespace {

// The CPU kernels' message (kernels/cpu/index_kernels.cc, OutOfRange).
absl::Status OutOfRange(const BadIndex& bad, int64_t n) {
  return absl::InvalidArgumentError(base::Cat("index[", bad.position, "] = ", bad.value,
                                              " is out of range (valid: [0, ", n, "))"));
}

// IndexSelect's and IndexAdd's operands: x (input 0) seen as [outer, n,
// inner] around the axis (scalar 0); the index (input 1) of m entries.
struct Take {
  int64_t outer = 1, n = 0, inner = 1, m = 0;
  const int64_t* index = nullptr;
};
Take TakeOf(const KernelContext& ctx) {
  const Shape& shape = ctx.input_meta(0).shape;
  const int64_t axis = ctx.scalar(0).to<int64_t>();
  Take t;
  t.n = shape[static_cast<int>(axis)];
  for (int d = 0; d < shape.rank(); ++d) {
    if (d < axis) t.outer *= shape[d];
    if (d > axis) t.inner *= shape[d];
  }
  t.m = ctx.input_meta(1).shape.numel();
  t.index = static_cast<const int64_t*>(ctx.raw_input(1));
  return t;
}

// The status of checking index[0..m) against [0, n): OK when all are in range.
absl::Status CheckIndices(KernelContext& ctx, const int64_t* index, int64_t m, int64_t n,
                          const char* op) {
  absl::StatusOr<BadIndex> bad = FindBadIndex(ctx, index, m, n, op);
  if (!bad.ok()) return bad.status();
  return bad->found() ? OutOfRange(*bad, n) : absl::OkStatus();
}

absl::Status IndexSelect(KernelContext& ctx) {
  const Take t = TakeOf(ctx);
  absl::Status s = CheckIndices(ctx, t.index, t.m, t.n, "IndexSelect");
  if (!s.ok()) return s;
  const TensorMeta& xm = ctx.input_meta(0);
  return Launched(
      cuda::LaunchIndexSelect(static_cast<int>(SizeOf(xm.dtype)), ctx.raw_output(0),
                              ctx.raw_input(0), t.index, t.outer, t.n, t.inner, t.m, StreamOf(ctx)),
      "IndexSelect kernel launch");
}

absl::Status IndexAdd(KernelContext& ctx) {
  const Take t = TakeOf(ctx);
  absl::Status s = CheckIndices(ctx, t.index, t.m, t.n, "IndexAdd");
  if (!s.ok()) return s;
  void* scratch = nullptr;
  const size_t bytes = cuda::IndexAddScratchBytes(t.outer, t.n, t.inner, t.m);
  if (bytes > 0) {
    absl::StatusOr<void*> tmp = ctx.AllocateTemp(bytes);  // freed in stream order
    if (!tmp.ok()) return tmp.status();
    scratch = *tmp;
  }
  return Launched(cuda::LaunchIndexAdd(ToDT(ctx.input_meta(0).dtype), ctx.raw_output(0),
                                       ctx.raw_input(0), t.index, ctx.raw_input(2), t.outer, t.n,
                                       t.inner, t.m, scratch, bytes, StreamOf(ctx)),
                  "IndexAdd kernel launch");
}

// out[..., k] = (k == index[...]); the kernel's dtype is the output's.
absl::Status OneHot(KernelContext& ctx) {
  const TensorMeta& om = ctx.output_meta(0);
  const int64_t classes = om.shape[om.shape.rank() - 1];
  const int64_t rows = ctx.input_meta(0).shape.numel();
  const auto* index = static_cast<const int64_t*>(ctx.raw_input(0));
  absl::Status s = CheckIndices(ctx, index, rows, classes, "OneHot");
  if (!s.ok()) return s;
  return Launched(
      cuda::LaunchOneHot(ToDT(om.dtype), ctx.raw_output(0), index, rows, classes, StreamOf(ctx)),
      "OneHot kernel launch");
}

absl::Status CrossEntropy(KernelContext& ctx) {
  const TensorMeta& xm = ctx.input_meta(0);
  const int64_t rows = xm.shape[0], classes = xm.shape[1];
  const auto* labels = static_cast<const int64_t*>(ctx.raw_input(1));
  absl::StatusOr<BadIndex> bad = FindBadIndex(ctx, labels, rows, classes, "CrossEntropy");
  if (!bad.ok()) return bad.status();
  if (bad->found()) {  // the CPU kernel's message (kernels/cpu/softmax_kernels.cc)
    return absl::InvalidArgumentError(base::Cat("labels[", bad->position, "] = ", bad->value,
                                                " is out of range for ", classes,
                                                " classes (valid: [0, ", classes, "))"));
  }
  void* scratch = nullptr;
  if (const size_t bytes = cuda::CrossEntropyScratchBytes(rows); bytes > 0) {
    absl::StatusOr<void*> tmp = ctx.AllocateTemp(bytes);  // freed in stream order
    if (!tmp.ok()) return tmp.status();
    scratch = *tmp;
  }
  return Launched(cuda::LaunchCrossEntropy(ToDT(xm.dtype), ctx.raw_output(0), ctx.raw_input(0),
                                           labels, rows, classes, scratch, StreamOf(ctx)),
                  "CrossEntropy kernel launch");
}

}  // namespace

void RegisterIndexKernels(internal::OpRegistry& r) {
  RegisterCuda(r, builtin::kIndexSelect, kEvery, IndexSelect);
  RegisterCuda(r, builtin::kOneHot, kEvery, OneHot);
  RegisterCuda(r, builtin::kIndexAdd, kNumericDTypes, IndexAdd);
  RegisterCuda(r, builtin::kCrossEntropy,
               {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}, CrossEntropy);
}

}  // namespace eagervm::kernels::cuda_impl
