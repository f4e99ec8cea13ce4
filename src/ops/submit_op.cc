#include "ops/submit_op.h"

#include "base/str_cat.h"
#include "vm/intake.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

absl::Status NoKernelError(const OpDef& def, Stream stream, DType dtype, const char* name) {
  const std::string_view op = name != nullptr ? std::string_view(name) : def.name;
  absl::StatusOr<vm::VmStream*> s = vm::ResolveStream(stream, op);
  if (!s.ok()) return s.status();
  const char* here = stream.device().is_cpu() ? "cpu" : "cuda";
  // The dtype is served on another device type: this backend lacks the op.
  for (int d = 0; d < kNumDeviceTypes; ++d) {
    const auto other = static_cast<DeviceType>(d);
    if (other != stream.device().type() && def.FindKernel(other, dtype) != nullptr) {
      return absl::UnimplementedError(base::Cat(
          op, ": no ", here, " kernel for dtype ", ToString(dtype), " (",
          other == DeviceType::kCPU ? "cpu" : "cuda", " only so far); move the tensors with To()"));
    }
  }
  return absl::InvalidArgumentError(
      base::Cat(op, ": no ", here, " kernel for dtype ", ToString(dtype)));
}

absl::StatusOr<vm::KernelCall> KernelCallFor(const OpDef& def, Stream stream, DType dtype) {
  const KernelFn* kernel = def.FindKernel(stream.device().type(), dtype);
  if (kernel == nullptr) return NoKernelError(def, stream, dtype);
  return KernelCallOf(def, kernel);
}

absl::Status CheckCallInputs(const OpDef& def, absl::Span<const Tensor* const> inputs,
                             std::string_view op) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = *inputs[i];
    if (!t.defined() || !t.ok()) return CheckTensor(t, op, base::Cat("input ", i));
    if (i > 0 && t.device() != inputs[0]->device()) {
      return absl::InvalidArgumentError(base::Cat(op, ": input ", i, " is on ",
                                                  t.device().ToString(), " but input 0 is on ",
                                                  inputs[0]->device().ToString(), "; use To()"));
    }
  }
  for (int m : def.options.mutated_inputs) {
    if (m < 0 || m >= static_cast<int>(inputs.size())) {
      return absl::InvalidArgumentError(
          base::Cat(op, ": declares input ", m, " mutated but got ", inputs.size(), " inputs"));
    }
  }
  return absl::OkStatus();
}

absl::Status OutputTooLargeError(const OpDef& def, const Shape& shape) {
  return absl::InvalidArgumentError(base::Cat(def.name, ": the output shape ", shape.ToString(),
                                              " has more than ", Shape::kMaxNumel, " elements"));
}

Tensor SubmitOpWithOutput(const OpDef& def, DType kernel_dtype, const TensorMeta& meta,
                          std::initializer_list<const Tensor*> inputs,
                          std::initializer_list<Scalar> scalars) {
  Tensor out = NewTensor(meta);
  const Tensor* outputs[] = {&out};
  absl::Status s =
      SubmitOp(def, kernel_dtype, absl::MakeConstSpan(inputs.begin(), inputs.size()),
               absl::MakeConstSpan(outputs), absl::MakeConstSpan(scalars.begin(), scalars.size()));
  if (!s.ok()) return Tensor::Error(std::move(s));
  return out;
}

}  // namespace eagervm::internal
