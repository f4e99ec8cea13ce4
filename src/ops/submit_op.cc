#include "ops/submit_op.h"

#include "base/str_cat.h"
#include "vm/physical_run.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

absl::StatusOr<vm::KernelCall> KernelCallFor(const OpDef& def, DeviceType device, DType dtype) {
  const KernelFn* kernel = def.FindKernel(device, dtype);
  if (kernel == nullptr) {
    return absl::InvalidArgumentError(base::Cat(def.name, ": no ",
                                                device == DeviceType::kCPU ? "cpu" : "cuda",
                                                " kernel for dtype ", ToString(dtype)));
  }
  vm::KernelCall call;
  call.name = def.name.c_str();
  call.kernel = kernel;
  call.mutated_mask = def.mutated_mask;
  call.may_run_inline = def.options.small_runs_inline;
  return call;
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
      return absl::InvalidArgumentError(base::Cat(op, ": declares input ", m, " mutated but got ",
                                                  inputs.size(), " inputs"));
    }
  }
  return absl::OkStatus();
}

absl::Status SubmitOp(const OpDef& def, DType dtype, absl::Span<const Tensor* const> inputs,
                      absl::Span<const Tensor* const> outputs, absl::Span<const Scalar> scalars,
                      std::shared_ptr<const Attrs> attrs) {
  const Tensor* first = !inputs.empty() ? inputs[0] : outputs[0];
  const Device device = first->device();
  absl::StatusOr<vm::KernelCall> call = KernelCallFor(def, device.type(), dtype);
  if (!call.ok()) return call.status();
  const vm::KernelCallArgs args{inputs, outputs, scalars, std::move(attrs)};
  return vm::PhysicalRun([&](vm::Builder* b) {
    return b->CallKernel(*call, args, Stream::Current(device));
  });
}

Tensor SubmitOpWithOutput(const OpDef& def, DType kernel_dtype, const TensorMeta& meta,
                          std::initializer_list<const Tensor*> inputs,
                          std::initializer_list<Scalar> scalars) {
  Tensor out = NewTensor(meta);
  const Tensor* outputs[] = {&out};
  absl::Status s = SubmitOp(def, kernel_dtype, absl::MakeConstSpan(inputs.begin(), inputs.size()),
                            absl::MakeConstSpan(outputs),
                            absl::MakeConstSpan(scalars.begin(), scalars.size()));
  if (!s.ok()) return Tensor::Error(std::move(s));
  return out;
}

}  // namespace eagervm::internal
