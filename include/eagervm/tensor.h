// Tensor: a cheap handle to asynchronously computed data that carries its own error.
#ifndef EAGERVM_TENSOR_H_
#define EAGERVM_TENSOR_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/device.h"
#include "eagervm/dtype.h"
#include "eagervm/export.h"
#include "eagervm/scalar.h"
#include "eagervm/shape.h"

namespace eagervm {

namespace internal {
struct TensorImpl;
}

// Shape, dtype and device of a tensor.
struct TensorMeta {
  Shape shape;
  DType dtype = DType::kFloat32;
  Device device;
  friend bool operator==(const TensorMeta& a, const TensorMeta& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.device == b.device;
  }
};
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const TensorMeta& m);

// Thread-safe to copy and drop from any thread (including VM threads and static
// destruction). Dropping the last handle to a storage releases its memory
// asynchronously, after every queued use. Methods marked "blocks" wait for the VM.
class [[nodiscard]] EAGERVM_EXPORT Tensor {
 public:
  Tensor() = default;  // !defined()
  explicit Tensor(std::shared_ptr<internal::TensorImpl> impl) : impl_(std::move(impl)) {}
  // An error-carrying tensor (!ok()); `status` must not be OK.
  static Tensor Error(absl::Status status);

  bool defined() const { return impl_ != nullptr; }
  // Never blocks: false iff the call that made this tensor was rejected, or the
  // tensor is undefined (default-constructed or moved-from).
  bool ok() const;
  const absl::Status& status() const;
  absl::Status Wait() const;  // blocks until computed; its rejection or runtime error

  const Shape& shape() const;
  DType dtype() const;
  Device device() const;
  const TensorMeta& meta() const;
  int64_t dim() const { return shape().size(); }
  int64_t size(int i) const { return shape()[i]; }
  int64_t numel() const { return shape().numel(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * SizeOf(dtype()); }

  // Blocks. numel() must be 1 and T must match dtype() (else InvalidArgument).
  template <typename T>
  absl::StatusOr<T> Item() const {
    T value{};
    absl::Status s = ReadItem(&value, DTypeOf<T>());
    if (!s.ok()) return s;
    return value;
  }
  // Blocks. T must match dtype().
  template <typename T>
  absl::StatusOr<std::vector<T>> ToVector() const {
    absl::Status s = CheckHostRead(DTypeOf<T>(), "ToVector");
    if (!s.ok()) return s;
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
      std::vector<unsigned char> bytes(static_cast<size_t>(numel()));
      s = CopyToHost(bytes.data(), bytes.size());
      if (!s.ok()) return s;
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> out(static_cast<size_t>(numel()));
      s = CopyToHost(out.data(), out.size() * sizeof(T));
      if (!s.ok()) return s;
      return out;
    }
  }
  // Blocks. `bytes` must equal nbytes().
  absl::Status CopyToHost(void* dst, size_t bytes) const;

  Tensor To(Device device) const;  // async copy
  // Views sharing storage (and its dependence) with this tensor.
  Tensor Reshape(Shape shape) const;
  Tensor Slice(int64_t begin, int64_t end) const;  // along dim 0

  const std::shared_ptr<internal::TensorImpl>& impl() const { return impl_; }

 private:
  absl::Status ReadItem(void* dst, DType expected) const;
  absl::Status CheckHostRead(DType expected, const char* what) const;

  std::shared_ptr<internal::TensorImpl> impl_;
};

EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const Tensor& t);  // blocks

// For code that prefers StatusOr: the tensor, or its rejection.
EAGERVM_EXPORT absl::StatusOr<Tensor> Checked(Tensor t);
// Blocks until these tensors are computed; only their errors are returned.
[[nodiscard]] EAGERVM_EXPORT absl::Status Wait(absl::Span<const Tensor> ts);
// Blocks until all work submitted before it (from any thread) is done; returns
// the first runtime error that no Wait/Sync/Item has reported yet.
[[nodiscard]] EAGERVM_EXPORT absl::Status Sync();

// ---- Creation (async; `device` defaults to the CPU) ----
namespace internal {
EAGERVM_EXPORT Tensor FromHostData(const void* data, size_t bytes, Shape shape, DType dtype,
                                   Device device);
}
template <typename T>
Tensor FromVector(absl::Span<const T> data, Shape shape, Device device = Device::Cpu()) {
  return internal::FromHostData(data.data(), data.size() * sizeof(T), shape, DTypeOf<T>(), device);
}
template <typename T>
Tensor FromVector(const std::vector<T>& data, Shape shape, Device device = Device::Cpu()) {
  if constexpr (std::is_same_v<T, bool>) {  // packed bits, no data(): one byte per element
    std::vector<unsigned char> bytes(data.begin(), data.end());
    return internal::FromHostData(bytes.data(), bytes.size(), shape, DType::kBool, device);
  } else {
    return FromVector<T>(absl::MakeConstSpan(data), shape, device);
  }
}
// So that FromVector<float>({1, 2, 3}, {3}) is not ambiguous.
template <typename T>
Tensor FromVector(std::initializer_list<T> data, Shape shape, Device device = Device::Cpu()) {
  if constexpr (std::is_same_v<T, bool>) {
    return FromVector<bool>(std::vector<bool>(data), shape, device);
  } else {
    return FromVector<T>(absl::MakeConstSpan(data.begin(), data.size()), shape, device);
  }
}
// Zero-copy wrap of host memory; `deleter(data)` runs after the last use.
EAGERVM_EXPORT Tensor FromBlob(void* data, Shape shape, DType dtype,
                               std::function<void(void*)> deleter);
EAGERVM_EXPORT Tensor Full(Shape shape, Scalar value, DType dtype, Device device = Device::Cpu());
EAGERVM_EXPORT Tensor Zeros(Shape shape, DType dtype, Device device = Device::Cpu());
// A tensor whose storage is allocated by the first instruction that writes it
// (e.g. the output of vm::InstructionsBuilder::Call); queues nothing. Reading
// it before any write is a runtime error. Any thread; never blocks.
EAGERVM_EXPORT Tensor Empty(Shape shape, DType dtype, Device device = Device::Cpu());
EAGERVM_EXPORT Tensor RandomNormal(Shape shape, DType dtype, Device device, uint64_t seed);

}  // namespace eagervm

#endif  // EAGERVM_TENSOR_H_
