#include "eagervm/instructions_builder.h"
#include "eagervm/status_macros.h"

#include <cstring>

#include "base/str_cat.h"
#include "eagervm/virtual_machine.h"
#include "ops/op_call_builder.h"
#include "vm/access_blob_policy.h"
#include "vm/barrier_policy.h"
#include "vm/instruction_pool.h"
#include "vm/release_tensor_policy.h"
#include "vm/tensor_impl.h"
#include "vm/vm_impl.h"

namespace eagervm::vm {

InstructionsBuilder::~InstructionsBuilder() {
  while (head_ != nullptr) {
    Instruction* i = head_;
    head_ = i->next;
    InstructionPool::Recycle(i);
  }
}

void InstructionsBuilder::Append(Instruction* instr) {
  instr->next = nullptr;
  if (tail_) tail_->next = instr; else head_ = instr;
  tail_ = instr;
  ++size_;
}

absl::Status InstructionsBuilder::Submit() {
  InstructionList list;
  list.head = head_;
  list.tail = tail_;
  list.size = size_;
  head_ = tail_ = nullptr;
  size_ = 0;
  return VirtualMachine::Get().impl()->Receive(&list);
}

absl::Status InstructionsBuilder::Call(const OpHandle& op, absl::Span<const Tensor> inputs,
                                       absl::Span<const Tensor> outputs, const Attrs& attrs,
                                       Stream stream) {
  const internal::OpDef& def = *op.def();
  absl::InlinedVector<const Tensor*, 4> in, out;
  DType dtype = DType::kFloat32;
  bool have_dtype = false;
  auto check = [&](const Tensor& t, const char* kind, size_t i) -> absl::Status {
    absl::Status s = internal::CheckTensor(t, def.name, base::Cat(kind, " ", i));
    if (!s.ok()) return s;
    if (t.device() != stream.device()) {
      return absl::InvalidArgumentError(base::Cat(def.name, ": ", kind, " ", i, " is on ",
                                                     t.device().ToString(), " but the stream is on ",
                                                     stream.device().ToString(), " (use To())"));
    }
    if (!have_dtype) {
      dtype = t.dtype();
      have_dtype = true;
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    EAGERVM_RETURN_IF_ERROR(check(inputs[i], "input", i));
    in.push_back(&inputs[i]);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    EAGERVM_RETURN_IF_ERROR(check(outputs[i], "output", i));
    out.push_back(&outputs[i]);
  }
  if (in.empty() && out.empty()) {
    return absl::InvalidArgumentError(base::Cat(def.name, ": an op call needs at least one tensor"));
  }
  absl::StatusOr<VmStream*> vs = internal::ResolveStream(stream, def.name);
  if (!vs.ok()) return vs.status();
  internal::OpCallRequest req;
  req.def = &def;
  req.kernel_dtype = dtype;
  req.inputs = absl::MakeConstSpan(in);
  req.outputs = absl::MakeConstSpan(out);
  if (!attrs.empty()) req.attrs = std::make_shared<const Attrs>(attrs);
  absl::StatusOr<Instruction*> instr = internal::BuildOpCall(req, *vs);
  if (!instr.ok()) return instr.status();
  Append(*instr);
  return absl::OkStatus();
}

absl::Status InstructionsBuilder::ReleaseTensor(const Tensor& t) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(t, "ReleaseTensor", "t"));
  BlobObject* blob = t.impl()->blob();
  VmStream* producer = blob->producer();
  if (producer == nullptr) return absl::OkStatus();
  Instruction* instr = InstructionPool::Acquire();
  instr->Emplace<ReleaseTensorPolicy>(t.impl()->shared_blob());
  instr->set_stream(producer);
  Append(instr);
  return absl::OkStatus();
}

absl::Status InstructionsBuilder::AccessBlobByCallback(const Tensor& t,
                                                       std::function<void(void*, size_t)> cb,
                                                       AccessMode mode) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(t, "AccessBlobByCallback", "t"));
  if (!cb) return absl::InvalidArgumentError("AccessBlobByCallback: empty callback");
  const bool write = mode == AccessMode::kWrite;
  const internal::TensorImpl& impl = *t.impl();
  VmStream* stream = write ? nullptr : impl.blob()->last_writer_stream();
  if (stream == nullptr) {
    absl::StatusOr<VmStream*> s = internal::ResolveStream(Stream::Current(t.device()), "AccessBlobByCallback");
    if (!s.ok()) return s.status();
    stream = *s;
  }
  if (write) impl.blob()->NoteWrite(stream);
  Instruction* instr = InstructionPool::Acquire();
  instr->Emplace<AccessBlobPolicy>(
      impl.shared_blob(), static_cast<size_t>(impl.offset), t.nbytes(), write,
      [cb = std::move(cb)](const ErrorPtr& e, void* data, size_t bytes) {
        if (e == nullptr) cb(data, bytes);
      });
  instr->set_stream(stream);
  Append(instr);
  return absl::OkStatus();
}

absl::Status InstructionsBuilder::Barrier(std::function<void()> cb) {
  Instruction* instr = InstructionPool::Acquire();
  instr->Emplace<BarrierPolicy>(std::move(cb));
  Append(instr);
  return absl::OkStatus();
}

absl::Status InstructionsBuilder::GlobalSync() { return Barrier(nullptr); }

}  // namespace eagervm::vm
