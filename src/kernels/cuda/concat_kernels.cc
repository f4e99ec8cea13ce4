// Concat and Split on CUDA along scalar(0)'s axis: the tensors seen as
// [outer, extent, inner]; each input (Concat) or output (Split) is a
// [outer, block] window of the whole, moved by one strided-copy launch
// (strided.cu). Every dtype: the elements are only moved.
#include "kernels/cuda/kernel_util.h"

namespace eagervm::kernels::cuda_impl {
namespace {

// Elements before `axis` (outer) and after it (inner).
void OuterInner(const Shape& s, int64_t axis, int64_t* outer, int64_t* inner) {
  *outer = *inner = 1;
  for (int d = 0; d < s.rank(); ++d) {
    if (d < axis) *outer *= s[d];
    if (d > axis) *inner *= s[d];
  }
}

// The [outer, block] window of a tensor whose rows are `row` elements long.
cuda::StridedArgs Window(int64_t outer, int64_t block, int64_t row) {
  cuda::StridedArgs a;
  a.rank = 2;
  a.dims[0] = outer;
  a.dims[1] = block;
  a.strides[0] = row;
  a.strides[1] = 1;
  return a;
}

absl::Status Concat(KernelContext& ctx) {
  const int64_t axis = ctx.scalar(0).to<int64_t>();
  const TensorMeta& om = ctx.output_meta(0);
  int64_t outer, inner;
  OuterInner(om.shape, axis, &outer, &inner);
  const int64_t out_block = om.shape[static_cast<int>(axis)] * inner;
  if (outer == 0 || out_block == 0) return absl::OkStatus();
  const size_t es = SizeOf(om.dtype);
  auto* out = static_cast<unsigned char*>(ctx.raw_output(0));
  int64_t offset = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const int64_t block = ctx.input_meta(i).shape[static_cast<int>(axis)] * inner;
    if (block > 0) {
      absl::Status s = Launched(
          cuda::LaunchStridedCopy(static_cast<int>(es), /*scatter=*/true,
                                  out + static_cast<size_t>(offset) * es, ctx.raw_input(i),
                                  Window(outer, block, out_block), outer * block, StreamOf(ctx)),
          "Concat kernel launch");
      if (!s.ok()) return s;
    }
    offset += block;
  }
  return absl::OkStatus();
}

absl::Status Split(KernelContext& ctx) {
  const int64_t axis = ctx.scalar(0).to<int64_t>();
  const TensorMeta& im = ctx.input_meta(0);
  int64_t outer, inner;
  OuterInner(im.shape, axis, &outer, &inner);
  const int64_t in_block = im.shape[static_cast<int>(axis)] * inner;
  if (outer == 0 || in_block == 0) return absl::OkStatus();
  const size_t es = SizeOf(im.dtype);
  const auto* x = static_cast<const unsigned char*>(ctx.raw_input(0));
  const int64_t block = in_block / ctx.num_outputs();  // equal parts, checked by the op
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    absl::Status s = Launched(
        cuda::LaunchStridedCopy(static_cast<int>(es), /*scatter=*/false, ctx.raw_output(i),
                                x + static_cast<size_t>(i * block) * es,
                                Window(outer, block, in_block), outer * block, StreamOf(ctx)),
        "Split kernel launch");
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterConcatKernels(internal::OpRegistry& r) {
  RegisterCuda(r, builtin::kConcat, kEvery, Concat);
  RegisterCuda(r, builtin::kSplit, kEvery, Split);
}

}  // namespace eagervm::kernels::cuda_impl
