#include "ops/op_call_builder.h"

#include "base/str_cat.h"
#include "eagervm/virtual_machine.h"
#include "vm/instruction_pool.h"
#include "vm/op_call_policy.h"
#include "vm/tensor_impl.h"
#include "vm/vm_impl.h"

namespace eagervm::internal {

absl::Status CheckTensor(const Tensor& t, std::string_view op, std::string_view arg) {
  if (!t.defined()) {
    return absl::FailedPreconditionError(base::Cat(
        op, ": argument '", arg, "' is an undefined tensor (default-constructed or moved-from)"));
  }
  if (!t.ok()) return t.status();  // an op given an error tensor returns that error
  return absl::OkStatus();
}

absl::StatusOr<vm::VmStream*> ResolveStream(Stream s, std::string_view op) {
  VirtualMachine& vm = VirtualMachine::Get();
  if (vm.is_shut_down()) {
    return absl::FailedPreconditionError(
        base::Cat(op, ": the eagervm VM has been shut down; no more work is accepted"));
  }
  absl::StatusOr<vm::VmStream*> stream = vm.impl()->GetStream(s);
  if (!stream.ok()) {
    return absl::Status(stream.status().code(), base::Cat(op, ": ", stream.status().message()));
  }
  return stream;
}

absl::StatusOr<vm::Instruction*> BuildOpCall(const OpCallRequest& req, vm::VmStream* stream) {
  const Device device = stream->id().device();
  const KernelFn* kernel = req.def->FindKernel(device.type(), req.kernel_dtype);
  if (kernel == nullptr) {
    return absl::InvalidArgumentError(base::Cat(req.def->name, ": no ",
                                                   device.is_cpu() ? "cpu" : "cuda",
                                                   " kernel for dtype ", ToString(req.kernel_dtype)));
  }
  if (req.scalars.size() > KernelArgs::kMaxScalars) {
    return absl::InternalError(base::Cat(req.def->name, ": too many scalar arguments"));
  }
  vm::Instruction* instr = vm::InstructionPool::Acquire();
  auto* policy = instr->Emplace<vm::OpCallPolicy>(req.def, kernel);
  instr->set_stream(stream);
  KernelArgs& args = policy->args();
  args.mutated_mask = req.def->mutated_mask;
  args.attrs = req.attrs;
  for (size_t i = 0; i < req.scalars.size(); ++i) args.scalars[i] = req.scalars[i];
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    const TensorImpl& t = *req.inputs[i]->impl();
    args.inputs.push_back(Operand{t.shared_blob(), t.meta, t.offset, nullptr});
    if (req.def->mutates(static_cast<int>(i))) t.blob()->NoteWrite(stream);
  }
  for (const Tensor* out : req.outputs) {
    const TensorImpl& t = *out->impl();
    args.outputs.push_back(Operand{t.shared_blob(), t.meta, t.offset, nullptr});
    t.blob()->NoteWrite(stream);
  }
  return instr;
}

absl::Status SubmitInstruction(vm::Instruction* instr) {
  vm::InstructionList list;
  list.PushBack(instr);
  return VirtualMachine::Get().impl()->Receive(&list);
}

absl::Status SubmitOpCall(const OpCallRequest& req) {
  const Tensor* first = !req.inputs.empty() ? req.inputs[0] : req.outputs[0];
  const Device device = first->device();
  absl::StatusOr<vm::VmStream*> stream = ResolveStream(Stream::Current(device), req.def->name);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<vm::Instruction*> instr = BuildOpCall(req, *stream);
  if (!instr.ok()) return instr.status();
  return SubmitInstruction(*instr);
}

absl::Status Run(const OpDef& def, DType dtype, std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs, std::initializer_list<Scalar> scalars) {
  OpCallRequest req;
  req.def = &def;
  req.kernel_dtype = dtype;
  req.inputs = absl::MakeConstSpan(inputs.begin(), inputs.size());
  req.outputs = absl::MakeConstSpan(outputs.begin(), outputs.size());
  req.scalars = absl::MakeConstSpan(scalars.begin(), scalars.size());
  return SubmitOpCall(req);
}

}  // namespace eagervm::internal
