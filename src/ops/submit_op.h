// The ops layer's one way into the VM: turn an op definition into a
// vm::KernelCall and submit it (vm::SubmitKernelCall: one instruction,
// straight to the VM, or into the running builder inside a build callback or
// a capture). Every op, built-in and custom, and the public
// InstructionsBuilder::Call come through here, after validating their inputs
// on the calling thread.
#ifndef EAGERVM_OPS_SUBMIT_OP_H_
#define EAGERVM_OPS_SUBMIT_OP_H_

#include <initializer_list>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/custom_op.h"
#include "eagervm/stream.h"
#include "eagervm/tensor.h"
#include "ops/grad_hook.h"
#include "ops/op_def.h"
#include "ops/strided.h"
#include "vm/intake.h"
#include "vm/kernel_call.h"
#include "vm/tensor_impl.h"  // CheckTensor, NewTensor

namespace eagervm::internal {

// The VM's view of `def` running `kernel` (one of its kernels).
inline vm::KernelCall KernelCallOf(const OpDef& def, const KernelFn* kernel) {
  vm::KernelCall call;
  call.name = def.name.c_str();
  call.kernel = kernel;
  call.mutated_mask = def.mutated_mask;
  call.overwritten_mask = def.overwritten_mask;
  call.may_run_inline = def.options.small_runs_inline;
  call.pure = def.options.pure;
  call.never_blocks = def.never_blocks;
  call.gathered_mask = def.gathered_mask;
  return call;
}
// Why `def` cannot run on `stream` for `dtype`: the stream's own error when
// it does not exist (e.g. "device cuda:0 is not available"), the more useful
// message; Unimplemented "CrossEntropy: no cuda kernel for dtype float32 (cpu
// only so far) ..." when another device type has a kernel for the dtype (this
// backend lacks the op); else InvalidArgument "Add: no cuda kernel for dtype
// bool".
// `name`: the function the user called, if not the op (as SubmitOp's).
absl::Status NoKernelError(const OpDef& def, Stream stream, DType dtype,
                           const char* name = nullptr);
// The VM's view of `def` running on `stream` for `dtype`, or NoKernelError.
absl::StatusOr<vm::KernelCall> KernelCallFor(const OpDef& def, Stream stream, DType dtype);

// Checks that custom-op inputs are defined, ok, on one device, and that the
// op's declared mutated inputs exist: the checks of ops::Call and
// InstructionsBuilder::Call. `op` names the op in the message.
absl::Status CheckCallInputs(const OpDef& def, absl::Span<const Tensor* const> inputs,
                             std::string_view op);

// The error of an output shape that inference made too large.
absl::Status OutputTooLargeError(const OpDef& def, const Shape& shape);

// Queues `def` on the current stream of the first input's (or output's)
// device; the kernel is picked by `dtype`. Tensors are already validated.
// `name`: what its runtime errors call it, when the user called another
// function than the op (Zeros runs Fill); null: the op's name.
// Inline: with the VM's one out-of-line call (SubmitKernelCall) it is every
// op's path, and a call layer costs ~25 instructions per op.
// SubmitOp without the autograd hook: what the recorder calls.
[[gnu::always_inline]] inline absl::Status SubmitOpUnrecorded(
    const OpDef& def, DType dtype, absl::Span<const Tensor* const> inputs,
    absl::Span<const Tensor* const> outputs, absl::Span<const Scalar> scalars = {},
    const std::shared_ptr<const Attrs>* attrs = nullptr, const char* name = nullptr) {
  // A strided view among the inputs: its own path (ops/strided.h).
  for (const Tensor* in : inputs) {
    if (internal::ImplOf(*in) != nullptr && !internal::ImplOf(*in)->strides.empty()) [[unlikely]]
      return SubmitStridedOp(def, dtype, inputs, outputs, scalars, attrs, name);
  }
  const Tensor* first = !inputs.empty() ? inputs[0] : outputs[0];
  const Device device = internal::ImplOf(*first)->meta.device;  // validated: defined
  // Shapes inferred from valid inputs may still be too large (broadcasting
  // or MatMul multiply extents): rejected before anything sizes storage.
  for (const Tensor* out : outputs) {
    if (!internal::ImplOf(*out)->meta.shape.IsValid()) [[unlikely]]
      return OutputTooLargeError(def, internal::ImplOf(*out)->meta.shape);
  }
  const KernelFn* kernel = def.FindKernel(device.type(), dtype);
  if (kernel == nullptr) [[unlikely]]
    return NoKernelError(def, Stream::Current(device), dtype, name);
  // One instruction, straight to the VM (the builder only where one runs).
  vm::KernelCall call = KernelCallOf(def, kernel);
  if (name != nullptr) call.name = name;
  return vm::SubmitKernelCall(call, vm::KernelCallArgs{inputs, outputs, scalars, attrs},
                              vm::CurrentStream(device));
}
// Once autograd is in use (ops/grad_hook.h), a call with an input that has
// an autograd record goes through the recorder (it checks, submits,
// records). A call with none is never recorded: it only bumps the versions
// of the storages it writes (a saved tensor may share one), here, and takes
// the plain path.
[[gnu::always_inline]] inline absl::Status SubmitOp(
    const OpDef& def, DType dtype, absl::Span<const Tensor* const> inputs,
    absl::Span<const Tensor* const> outputs, absl::Span<const Scalar> scalars = {},
    const std::shared_ptr<const Attrs>* attrs = nullptr, const char* name = nullptr) {
  if (GradRecorder* recorder = ActiveGradRecorder()) [[unlikely]] {
    for (const Tensor* in : inputs) {
      if (in->defined() && ImplOf(*in)->autograd.get() != nullptr) {
        return recorder->Submit(OpCallRecord{&def, dtype, inputs, outputs, scalars, attrs, name});
      }
    }
    if (def.mutated_mask.bits != 0) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (!def.mutated_mask.has(i) || !inputs[i]->defined()) continue;
        if (const auto& impl = ImplOf(*inputs[i]); impl->storage != nullptr) {
          impl->storage->BumpVersion();
        }
      }
    }
  }
  return SubmitOpUnrecorded(def, dtype, inputs, outputs, scalars, attrs, name);
}
[[gnu::always_inline]] inline absl::Status SubmitOp(const OpDef& def, DType dtype,
                                                    std::initializer_list<const Tensor*> inputs,
                                                    std::initializer_list<const Tensor*> outputs,
                                                    std::initializer_list<Scalar> scalars = {}) {
  return SubmitOp(def, dtype, absl::MakeConstSpan(inputs.begin(), inputs.size()),
                  absl::MakeConstSpan(outputs.begin(), outputs.size()),
                  absl::MakeConstSpan(scalars.begin(), scalars.size()));
}

// Makes an output of `meta`, queues `def` on it, and returns it (or the error
// tensor if queuing was refused).
Tensor SubmitOpWithOutput(const OpDef& def, DType kernel_dtype, const TensorMeta& meta,
                          std::initializer_list<const Tensor*> inputs,
                          std::initializer_list<Scalar> scalars = {});

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_SUBMIT_OP_H_
