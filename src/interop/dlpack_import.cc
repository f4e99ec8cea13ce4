// FromDLPack: wraps a producer's memory as a storage whose release (in stream
// order, after every queued use: ReleaseTensorPolicy) calls the producer's
// deleter. The same mechanism as FromBlob (ops/creation_ops.cc), for any device.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/str_cat.h"
#include "eagervm/dlpack.h"
#include "eagervm/stream.h"
#include "interop/dlpack_abi.h"
#include "interop/dlpack_dtype.h"
#include "vm/blob_object.h"
#include "vm/intake/process_vm.h"
#include "vm/tensor_impl.h"

namespace eagervm {
namespace {

absl::Status Rejected(std::string_view why) {
  return absl::InvalidArgumentError(base::Cat("FromDLPack: ", why));
}

absl::StatusOr<Shape> CheckShape(const DLTensor& dl) {
  if (dl.ndim < 0 || dl.ndim > Shape::kMaxDims) {
    return Rejected(base::Cat("ndim ", dl.ndim, " is outside [0, ", Shape::kMaxDims, "]"));
  }
  if (dl.ndim > 0 && dl.shape == nullptr) return Rejected("shape is null");
  Shape shape;
  for (int d = 0; d < dl.ndim; ++d) {
    if (dl.shape[d] < 0) return Rejected(base::Cat("dimension ", d, " is ", dl.shape[d]));
    shape.push_back(dl.shape[d]);
  }
  // The producer's fields are untrusted: an element (or byte) count that
  // overflows would let a later op read far out of bounds.
  if (!shape.IsValid()) {
    return Rejected(base::Cat("shape ", shape.ToString(), ": ", shape.InvalidReason()));
  }
  return shape;
}

// Non-negative strides whose span (first to last element) fits an int64
// byte count; nullptr is compact (DLPack 0.6). Compact strides import as a
// plain tensor, others as a strided view (Tensor::is_contiguous() false).
// The stride of a size-1 dimension addresses nothing (producers such as
// libtorch may write any value there), and an empty tensor has no layout.
absl::Status CheckStrides(const DLTensor& dl, const Shape& shape) {
  if (dl.strides == nullptr || shape.numel() == 0) return absl::OkStatus();
  int64_t span = 1;
  for (int d = 0; d < dl.ndim; ++d) {
    if (shape[d] == 1) continue;
    if (dl.strides[d] < 0) {
      return Rejected(base::Cat("stride ", dl.strides[d], " of dimension ", d, " of shape ",
                                shape.ToString(), " is negative; only non-negative strides"));
    }
    if (dl.strides[d] > 0 && (shape[d] - 1) > (Shape::kMaxNumel - span) / dl.strides[d]) {
      return Rejected(
          base::Cat("strides of shape ", shape.ToString(), " span more than 2^60 elements"));
    }
    span += (shape[d] - 1) * dl.strides[d];
  }
  return absl::OkStatus();
}

// The element strides of an import: empty if compact, else dl.strides
// (size-1 dimensions get 0: they address nothing).
std::vector<int64_t> ImportStrides(const DLTensor& dl, const Shape& shape, int64_t* span) {
  *span = shape.numel();
  if (dl.strides == nullptr || shape.numel() == 0) return {};
  std::vector<int64_t> strides(static_cast<size_t>(dl.ndim));
  bool compact = true;
  int64_t expected = 1, last = 0;
  for (int d = dl.ndim - 1; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = shape[d] == 1 ? 0 : dl.strides[d];
    if (shape[d] != 1 && dl.strides[d] != expected) compact = false;
    expected *= shape[d];
    last += (shape[d] - 1) * strides[static_cast<size_t>(d)];
  }
  if (compact) return {};
  *span = last + 1;
  return strides;
}

absl::StatusOr<Device> CheckDevice(DLDevice d) {
  switch (d.device_type) {
    case kDLCPU:
      return Device::Cpu();
    case kDLCUDA:
      return Device::Cuda(d.device_id);
    default:
      return Rejected(base::Cat("device type ", static_cast<int>(d.device_type), " (id ",
                                d.device_id,
                                ") is not supported: only kDLCPU (1) and kDLCUDA (2)"));
  }
}

absl::StatusOr<TensorMeta> CheckImport(const DLManagedTensor* m) {
  if (m == nullptr) return Rejected("the DLManagedTensor is null");
  const DLTensor& dl = m->dl_tensor;
  std::optional<DType> dtype = interop::FromDLDataType(dl.dtype);
  if (!dtype) {
    return Rejected(base::Cat("unsupported dtype (code ", static_cast<int>(dl.dtype.code),
                              ", bits ", static_cast<int>(dl.dtype.bits), ", lanes ",
                              dl.dtype.lanes,
                              "): eagervm has bool, int32, int64, float32 and float64, one lane"));
  }
  absl::StatusOr<Shape> shape = CheckShape(dl);
  if (!shape.ok()) return shape.status();
  absl::Status s = CheckStrides(dl, *shape);
  if (!s.ok()) return s;
  if (dl.data == nullptr && shape->numel() > 0) return Rejected("data is null");
  // Kernels read the data as the dtype: a misaligned address is undefined
  // behaviour there (and a fault on some devices). Not copied: the import
  // shares the producer's memory, so the producer must align it.
  const uintptr_t address = reinterpret_cast<uintptr_t>(dl.data) + dl.byte_offset;
  if (shape->numel() > 0 && address % SizeOf(*dtype) != 0) {
    return Rejected(
        base::Cat("the data address (data + byte_offset = ", fmt::format("{:#x}", address),
                  ") is not aligned to ", SizeOf(*dtype), " bytes for ", ToString(*dtype),
                  "; align it, or copy it into an aligned buffer"));
  }
  absl::StatusOr<Device> device = CheckDevice(dl.device);
  if (!device.ok()) return device.status();
  return TensorMeta{*shape, *dtype, *device};
}

// Stands in for a null data pointer of an empty tensor: BlobObject treats a
// null pointer as "not allocated" and would never call the deleter. Nothing
// dereferences the storage of a tensor without elements.
char g_empty_storage;

}  // namespace

Tensor FromDLPack(DLManagedTensor* m) {
  absl::StatusOr<TensorMeta> meta = CheckImport(m);
  if (!meta.ok()) return Tensor::Error(meta.status());
  // Absent devices (CUDA without the backend or a GPU, an index out of range)
  // and a shut-down VM are rejected here, before ownership is taken.
  absl::StatusOr<vm::VmStream*> stream =
      vm::ResolveStream(Stream::Current(meta->device), "FromDLPack");
  if (!stream.ok()) return Tensor::Error(stream.status());  // names FromDLPack
  const DLTensor& dl = m->dl_tensor;
  void* data = dl.data == nullptr ? &g_empty_storage : static_cast<char*>(dl.data) + dl.byte_offset;
  auto impl = std::make_shared<internal::TensorImpl>();
  impl->meta = *meta;
  int64_t span = 0;
  impl->strides = ImportStrides(dl, meta->shape, &span);
  const size_t bytes = static_cast<size_t>(span) * SizeOf(meta->dtype);
  auto blob = std::make_shared<vm::BlobObject>(data, bytes, meta->device, [m](void*) {
    if (m->deleter != nullptr) m->deleter(m);
  });
  blob->NoteWrite(*stream);  // the release goes to this stream
  impl->storage = std::make_shared<internal::StorageHandle>(std::move(blob));
  return internal::WrapImpl(std::move(impl));
}

}  // namespace eagervm
