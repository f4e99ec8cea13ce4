// Creation: FromVector (via FromHostData), FromBlob, Full, Zeros, Empty.
#include <cstring>
#include <vector>

#include "base/str_cat.h"
#include "eagervm/tensor.h"
#include "ops/builtin.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"
#include "vm/intake.h"
#include "vm/tensor_impl.h"

namespace eagervm {
namespace {

absl::Status CheckShape(const Shape& shape, const char* op) {
  if (!shape.IsValid()) {
    return absl::InvalidArgumentError(
        base::Cat(op, ": invalid shape ", shape.ToString(), ": ", shape.InvalidReason()));
  }
  return absl::OkStatus();
}

}  // namespace

Tensor Tensor::FromHostData(const void* data, size_t bytes, Shape shape, DType dtype,
                            Device device) {
  absl::Status s = CheckShape(shape, "FromVector");
  if (!s.ok()) return Tensor::Error(s);
  const size_t expected = static_cast<size_t>(shape.numel()) * SizeOf(dtype);
  if (bytes != expected) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("FromVector: ", bytes / SizeOf(dtype), " values do not fill shape ",
                  shape.ToString(), " (", shape.numel(), " elements)")));
  }
  Tensor t = internal::NewTensor(TensorMeta{shape, dtype, device});
  std::vector<char> copy(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
  s = vm::PhysicalRun([&](vm::Builder* b) {
    return b->HostWrite(
        t,
        [copy = std::move(copy)](const vm::ErrorPtr& e, void* dst, size_t n) {
          if (e == nullptr && n > 0) std::memcpy(dst, copy.data(), n);
        },
        "FromVector");
  });
  if (!s.ok()) return Tensor::Error(s);
  return t;
}

Tensor FromBlob(void* data, Shape shape, DType dtype, std::function<void(void*)> deleter) {
  absl::Status s = CheckShape(shape, "FromBlob");
  if (!s.ok()) return Tensor::Error(s);
  if (data == nullptr && shape.numel() > 0) {
    return Tensor::Error(absl::InvalidArgumentError("FromBlob: data is null"));
  }
  absl::StatusOr<vm::VmStream*> stream =
      vm::ResolveStream(Stream::Current(Device::Cpu()), "FromBlob");
  if (!stream.ok()) return Tensor::Error(stream.status());
  auto impl = std::make_shared<internal::TensorImpl>();
  impl->meta = TensorMeta{shape, dtype, Device::Cpu()};
  const size_t bytes = static_cast<size_t>(shape.numel()) * SizeOf(dtype);
  auto blob = std::make_shared<vm::BlobObject>(
      data, bytes, Device::Cpu(), deleter ? std::move(deleter) : [](void*) {});
  blob->NoteWrite(*stream);
  impl->storage = std::make_shared<internal::StorageHandle>(std::move(blob));
  return internal::WrapImpl(std::move(impl));
}

namespace {

// Full and Zeros: the Fill op, with errors (at the call and at run time)
// naming the function the user called.
Tensor FullAs(const char* name, Shape shape, Scalar value, DType dtype, Device device) {
  absl::Status s = CheckShape(shape, name);
  if (s.ok()) s = internal::CheckScalarFits(value, dtype, name);
  if (!s.ok()) return Tensor::Error(s);
  Tensor out = internal::NewTensor(TensorMeta{shape, dtype, device});
  const Tensor* outputs[] = {&out};
  const Scalar scalars[] = {value};
  s = internal::SubmitOp(EAGERVM_BUILTIN_OP(kFill), dtype, {}, outputs, scalars, nullptr, name);
  if (!s.ok()) return Tensor::Error(s);
  return out;
}

}  // namespace

Tensor Full(Shape shape, Scalar value, DType dtype, Device device) {
  return FullAs("Full", std::move(shape), value, dtype, device);
}

Tensor Zeros(Shape shape, DType dtype, Device device) {
  return FullAs("Zeros", std::move(shape), 0, dtype, device);
}

Tensor Empty(Shape shape, DType dtype, Device device) {
  absl::Status s = CheckShape(shape, "Empty");
  if (!s.ok()) return Tensor::Error(s);
  return internal::NewTensor(TensorMeta{shape, dtype, device});
}

}  // namespace eagervm
