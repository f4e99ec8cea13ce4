// ToDLPack: a DLManagedTensor that points into a computed tensor's storage
// and holds a Tensor handle to it until the consumer's deleter runs.
#include <cstdint>
#include <memory>
#include <utility>

#include "base/str_cat.h"
#include "eagervm/dlpack.h"
#include "interop/dlpack_abi.h"
#include "interop/dlpack_dtype.h"
#include "vm/api/host_access.h"
#include "vm/tensor_impl.h"

namespace eagervm {
namespace {

// Owned by the DLManagedTensor it contains (manager_ctx points back here).
// The Tensor keeps the storage alive; dropping it is allowed from any thread
// and after Shutdown (tensor.h), which is what makes the deleter safe there.
struct ExportContext {
  Tensor tensor;
  int64_t shape[Shape::kMaxDims] = {};
  int64_t strides[Shape::kMaxDims] = {};
  DLManagedTensor managed = {};
};

void DeleteExport(DLManagedTensor* m) {
  if (m != nullptr) delete static_cast<ExportContext*>(m->manager_ctx);
}

DLDevice ToDLDevice(Device d) {
  if (d.is_cpu()) return DLDevice{kDLCPU, 0};
  return DLDevice{kDLCUDA, d.index()};
}

}  // namespace

absl::StatusOr<DLManagedTensor*> ToDLPack(const Tensor& t) {
  // Blocks: the VM-thread and shutdown checks, the rejection or runtime error.
  absl::Status s = internal::ReadToHost(t, nullptr, 0, "ToDLPack");
  if (!s.ok()) return s;
  const internal::TensorImpl& impl = *internal::ImplOf(t);
  // Wait() returned, so the writes of the VM thread (allocation included)
  // happen before this read of the storage pointer.
  char* base = static_cast<char*>(impl.blob()->data());
  if (base == nullptr && t.numel() > 0) {
    return absl::InternalError("ToDLPack: a computed tensor has no storage");
  }

  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = t;
  const Shape& shape = t.shape();
  int64_t stride = 1;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    ctx->shape[d] = shape[d];
    // A strided view exports its own strides (no copy); 0 for Expand's.
    ctx->strides[d] = impl.strides.empty() ? stride : impl.strides[static_cast<size_t>(d)];
    stride *= shape[d];
  }
  DLTensor& dl = ctx->managed.dl_tensor;
  // The view's first element, byte_offset 0: libtorch 1.13's fromDLPack
  // ignores byte_offset, so an offset there would be silently lost.
  dl.data = base == nullptr ? nullptr : base + impl.offset;
  dl.byte_offset = 0;
  dl.device = ToDLDevice(t.device());
  dl.ndim = shape.rank();
  dl.dtype = interop::ToDLDataType(t.dtype());
  dl.shape = ctx->shape;
  dl.strides = ctx->strides;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &DeleteExport;
  return &ctx.release()->managed;
}

}  // namespace eagervm
