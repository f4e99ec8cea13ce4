// Tensor handle methods, views and host reads.
#include "eagervm/tensor.h"

#include <ostream>
#include <sstream>

#include "base/str_cat.h"
#include "vm/api/host_access.h"
#include "vm/intake/physical_run.h"
#include "vm/tensor_impl.h"

namespace eagervm {
namespace {

const absl::Status& UndefinedStatus() {
  static const absl::Status* s = new absl::Status(
      absl::FailedPreconditionError("undefined tensor (default-constructed or moved-from)"));
  return *s;
}
// The meta of a tensor without one: no elements (tensor.h).
const TensorMeta& EmptyMeta() {
  static const TensorMeta* m = new TensorMeta{Shape{0}, DType::kFloat32, Device::Cpu()};
  return *m;
}

}  // namespace

Tensor Tensor::Error(absl::Status status) {
  auto impl = std::make_shared<internal::TensorImpl>();
  impl->status = status.ok() ? absl::InternalError("Tensor::Error called with an OK status")
                             : std::move(status);
  if (vm::Builder* r = vm::CurrentRecorder(); r != nullptr) r->NoteRejection(impl->status);
  return Tensor(std::move(impl));
}

bool Tensor::ok() const {
  return impl_ != nullptr && impl_->status.ok() && impl_->fork_generation == vm::ForkGeneration();
}
const absl::Status& Tensor::status() const {
  if (impl_ == nullptr) return UndefinedStatus();
  if (impl_->fork_generation != vm::ForkGeneration()) [[unlikely]]
    return internal::ForkedTensorStatus();
  return impl_->status;
}
bool Tensor::has_meta() const { return impl_ != nullptr && impl_->status.ok(); }
const TensorMeta& Tensor::meta() const { return has_meta() ? impl_->meta : EmptyMeta(); }
const Shape& Tensor::shape() const { return meta().shape; }
DType Tensor::dtype() const { return meta().dtype; }
Device Tensor::device() const { return meta().device; }

bool Tensor::is_contiguous() const { return has_meta() && impl_->strides.empty(); }

absl::Status Tensor::Wait() const { return internal::ReadToHost(*this, nullptr, 0, "Wait"); }

absl::Status Tensor::CheckHostRead(DType expected, const char* what) const {
  absl::Status s = internal::CheckTensor(*this, what, "self");
  if (!s.ok()) return s;
  if (dtype() != expected) {
    return absl::InvalidArgumentError(base::Cat(what, ": the tensor is ", ToString(dtype()),
                                                " but ", ToString(expected), " was asked for"));
  }
  return absl::OkStatus();
}

absl::Status Tensor::HostVectorRefused(size_t element_bytes) const {
  return absl::ResourceExhaustedError(
      base::Cat("ToVector: cannot allocate a host vector for the tensor ", shape().ToString(), " ",
                ToString(dtype()), " (", numel(), " elements of ", element_bytes,
                " bytes): the system refused it"));
}

absl::Status Tensor::ReadItem(void* dst, DType expected) const {
  absl::Status s = CheckHostRead(expected, "Item");
  if (!s.ok()) return s;
  if (numel() != 1) {
    return absl::InvalidArgumentError(base::Cat("Item: the tensor has shape ", shape().ToString(),
                                                " (", numel(), " elements); Item needs exactly 1"));
  }
  return internal::ReadToHost(*this, dst, SizeOf(expected), "Item");
}

absl::Status Tensor::CopyToHost(void* dst, size_t bytes) const {
  absl::Status s = internal::CheckTensor(*this, "CopyToHost", "self");
  if (!s.ok()) return s;
  if (bytes != nbytes()) {
    return absl::InvalidArgumentError(base::Cat("CopyToHost: the tensor ", shape().ToString(), " ",
                                                ToString(dtype()), " has ", nbytes(),
                                                " bytes but the buffer has ", bytes));
  }
  return internal::ReadToHost(*this, dst, bytes, "CopyToHost");
}

Tensor Tensor::Reshape(Shape shape) const {
  absl::Status s = internal::CheckTensor(*this, "Reshape", "self");
  if (!s.ok()) return Error(s);
  if (!impl_->strides.empty()) {
    return Error(absl::InvalidArgumentError(
        base::Cat("Reshape: cannot view the strided view ", this->shape().ToString(), " as ",
                  shape.ToString(), " without a copy; reshape its Contiguous() copy")));
  }
  if (!shape.IsValid() || shape.numel() != numel()) {
    return Error(
        absl::InvalidArgumentError(base::Cat("Reshape: cannot view ", this->shape().ToString(),
                                             " (", numel(), " elements) as ", shape.ToString())));
  }
  auto view = std::make_shared<internal::TensorImpl>(*impl_);
  view->meta.shape = shape;
  return internal::RecordedView(*this, Tensor(std::move(view)), "Reshape");
}

absl::StatusOr<Tensor> Checked(Tensor t) {
  if (!t.ok()) return t.status();
  return t;
}

absl::Status Wait(absl::Span<const Tensor> ts) {
  absl::Status first;
  for (const Tensor& t : ts) {
    absl::Status s = t.Wait();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

namespace {
template <typename T>
void PrintValues(std::ostream& os, const std::vector<T>& v) {
  constexpr size_t kMaxPrinted = 16;
  os << "[";
  for (size_t i = 0; i < v.size() && i < kMaxPrinted; ++i) {
    if (i > 0) os << ", ";
    if constexpr (std::is_same_v<T, bool>)
      os << (v[i] ? "true" : "false");
    else if constexpr (std::is_same_v<T, uint8_t>)
      os << static_cast<int>(v[i]);  // a number, not a character
    else
      os << v[i];
  }
  if (v.size() > kMaxPrinted) os << ", ... (" << v.size() << " values)";
  os << "]";
}
template <typename T>
void PrintTensor(std::ostream& os, const Tensor& t) {
  absl::StatusOr<std::vector<T>> v = t.ToVector<T>();
  if (!v.ok()) {
    os << "<error: " << v.status() << ">";
    return;
  }
  PrintValues(os, *v);
}
}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.ok()) return os << "Tensor(<" << t.status() << ">)";
  os << "Tensor(" << t.shape() << ", " << t.dtype() << ", " << t.device() << ", ";
  VisitDType(t.dtype(), [&](auto zero) { PrintTensor<decltype(zero)>(os, t); });
  return os << ")";
}

std::ostream& operator<<(std::ostream& os, const TensorMeta& m) {
  return os << "TensorMeta(" << m.shape << ", " << m.dtype << ", " << m.device << ")";
}

}  // namespace eagervm
