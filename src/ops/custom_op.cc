// The custom-op API: RegisterOp, RegisterKernel, OpHandle and ops::Call.
#include "eagervm/custom_op.h"

#include <string_view>

#include "base/str_cat.h"
#include "eagervm/stream.h"
#include "ops/op_call_builder.h"
#include "ops/op_registry.h"
#include "vm/tensor_impl.h"

namespace eagervm {

absl::Status RegisterOp(std::string name, InferFn infer, OpOptions options) {
  if (!infer) return absl::InvalidArgumentError(base::Cat("RegisterOp(", name, "): empty InferFn"));
  return internal::OpRegistry::Get().RegisterOp(std::move(name), std::move(infer), std::move(options));
}

absl::Status RegisterKernel(std::string op, DeviceType device, KernelFn kernel) {
  return internal::OpRegistry::Get().RegisterKernel(op, device, std::move(kernel));
}

absl::StatusOr<OpHandle> OpHandle::Find(std::string_view name) {
  const internal::OpDef* def = internal::OpRegistry::Get().Find(name);
  if (def == nullptr) return absl::NotFoundError(base::Cat("unknown op '", name, "'"));
  return OpHandle(def);
}

std::string_view OpHandle::name() const { return def_->name; }

namespace ops {
namespace {

// The registry lookup takes a lock and hashes the name; a program calls the
// same few ops over and over, so each thread remembers its last one. Ops are
// never unregistered (the registry is never destroyed), so a remembered
// OpDef and its name stay valid; a plain pointer is also safe to use during
// thread and static destruction.
const internal::OpDef* FindCached(std::string_view op) {
  thread_local const internal::OpDef* last_def = nullptr;
  if (last_def != nullptr && std::string_view(last_def->name) == op) return last_def;
  const internal::OpDef* def = internal::OpRegistry::Get().Find(op);
  if (def != nullptr) last_def = def;
  return def;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> Call(std::string_view op, const std::vector<Tensor>& inputs,
                                         Attrs attrs) {
  const internal::OpDef* def = FindCached(op);
  if (def == nullptr) return absl::NotFoundError(base::Cat("ops::Call: unknown op '", op, "'"));
  if (!def->infer) {
    return absl::InvalidArgumentError(base::Cat(
        "ops::Call: '", op, "' is a built-in op; call it through eagervm::ops::", op));
  }
  std::vector<TensorMeta> in_metas;
  in_metas.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].ok()) {  // the message only when it is needed
      return internal::CheckTensor(inputs[i], op, base::Cat("input ", i));
    }
    if (i > 0 && inputs[i].device() != inputs[0].device()) {
      return absl::InvalidArgumentError(base::Cat(op, ": input ", i, " is on ",
                                                     inputs[i].device().ToString(), " but input 0 is on ",
                                                     inputs[0].device().ToString(), "; use To()"));
    }
    in_metas.push_back(inputs[i].meta());
  }
  for (int m : def->options.mutated_inputs) {
    if (m >= static_cast<int>(inputs.size())) {
      return absl::InvalidArgumentError(base::Cat(op, ": declares input ", m, " mutated but got ",
                                                     inputs.size(), " inputs"));
    }
  }
  absl::StatusOr<std::vector<TensorMeta>> out_metas;
  try {
    out_metas = def->infer(in_metas, attrs);
  } catch (const std::exception& e) {
    return absl::InternalError(base::Cat(op, ": InferFn threw: ", e.what()));
  }
  if (!out_metas.ok()) {
    return absl::Status(out_metas.status().code(),
                        base::Cat(op, ": ", out_metas.status().message()));
  }
  if (inputs.empty() && out_metas->empty()) {
    return absl::InvalidArgumentError(base::Cat(op, ": an op needs an input or an output"));
  }
  const Device device = !inputs.empty() ? inputs[0].device() : (*out_metas)[0].device;
  std::vector<Tensor> outputs;
  outputs.reserve(out_metas->size());
  for (size_t i = 0; i < out_metas->size(); ++i) {
    TensorMeta m = (*out_metas)[i];
    if (!m.shape.IsValid()) {
      return absl::InvalidArgumentError(base::Cat(op, ": InferFn returned an invalid shape ",
                                                     m.shape.ToString(), " for output ", i));
    }
    if (m.device != device) {
      return absl::InvalidArgumentError(base::Cat(op, ": output ", i, " is on ", m.device.ToString(),
                                                     " but the op runs on ", device.ToString()));
    }
    outputs.push_back(internal::NewTensor(m));
  }
  absl::InlinedVector<const Tensor*, 4> in_ptrs, out_ptrs;
  for (const Tensor& t : inputs) in_ptrs.push_back(&t);
  for (const Tensor& t : outputs) out_ptrs.push_back(&t);
  internal::OpCallRequest req;
  req.def = def;
  req.kernel_dtype = !inputs.empty() ? inputs[0].dtype() : outputs[0].dtype();
  req.inputs = absl::MakeConstSpan(in_ptrs);
  req.outputs = absl::MakeConstSpan(out_ptrs);
  if (!attrs.empty()) req.attrs = std::make_shared<const Attrs>(std::move(attrs));
  absl::StatusOr<vm::VmStream*> stream = internal::ResolveStream(Stream::Current(device), op);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<vm::Instruction*> instr = internal::BuildOpCall(req, *stream);
  if (!instr.ok()) return instr.status();
  absl::Status s = internal::SubmitInstruction(*instr);
  if (!s.ok()) return s;
  return outputs;
}

}  // namespace ops
}  // namespace eagervm
