#include "vm/op_call_policy.h"

#include <exception>

#include "base/str_cat.h"
#include "eagervm/virtual_machine.h"
#include "vm/vm_impl.h"
#include "vm/vm_stream.h"

namespace eagervm::vm {

void OpCallPolicy::GetAccesses(AccessList* out) const {
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    out->push_back({args_.inputs[i].blob.get(), def_->mutates(static_cast<int>(i))});
  }
  for (const internal::Operand& o : args_.outputs) out->push_back({o.blob.get(), true});
}

size_t OpCallPolicy::InlineBytes() const {
  if (!def_->options.small_runs_inline) return kNotInline;
  size_t bytes = 0;
  auto nbytes = [](const internal::Operand& o) {
    return static_cast<size_t>(o.meta.shape.numel()) * SizeOf(o.meta.dtype);
  };
  for (const internal::Operand& o : args_.inputs) bytes += nbytes(o);
  for (const internal::Operand& o : args_.outputs) bytes += nbytes(o);
  return bytes;
}

void OpCallPolicy::Poison(const ErrorPtr& error) {
  for (internal::Operand& o : args_.outputs) o.blob->set_error(error);
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    if (def_->mutates(static_cast<int>(i))) args_.inputs[i].blob->set_error(error);
  }
}

void OpCallPolicy::Compute(VmStream* stream) {
  // Forward an error from any input without computing.
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    internal::Operand& in = args_.inputs[i];
    if (in.blob->error() != nullptr) {
      Poison(in.blob->error());
      return;
    }
    if (!in.blob->allocated()) {
      auto e = std::make_shared<ErrorRecord>(absl::FailedPreconditionError(
          base::Cat(def_->name, ": input ", i, " ", in.meta.shape.ToString(),
                       " was never written (or its storage was released)")));
      VirtualMachine::Get().impl()->RecordError(e);
      Poison(e);
      return;
    }
    in.data = static_cast<char*>(in.blob->data()) + in.offset;
  }
  for (internal::Operand& out : args_.outputs) {
    absl::Status s = out.blob->EnsureAllocated(stream->allocator());
    if (!s.ok()) {
      auto e = std::make_shared<ErrorRecord>(
          absl::Status(s.code(), base::Cat(def_->name, ": ", s.message())));
      VirtualMachine::Get().impl()->RecordError(e);
      Poison(e);
      return;
    }
    out.data = static_cast<char*>(out.blob->data()) + out.offset;
  }
  args_.stream = stream;
  KernelContext ctx(&args_);
  absl::Status status;
  try {
    status = (*kernel_)(ctx);
  } catch (const std::exception& ex) {
    status = absl::InternalError(base::Cat("kernel threw: ", ex.what()));
  } catch (...) {
    status = absl::InternalError("kernel threw a non-std::exception");
  }
  for (auto& [ptr, bytes] : args_.temps) stream->allocator()->Deallocate(ptr, bytes);
  args_.temps.clear();
  if (!status.ok()) {
    auto e = std::make_shared<ErrorRecord>(
        absl::Status(status.code(), base::Cat(def_->name, ": ", status.message())));
    VirtualMachine::Get().impl()->RecordError(e);
    Poison(e);
    return;
  }
  // A successful write heals a storage that carried an earlier error.
  for (internal::Operand& o : args_.outputs) o.blob->set_error(nullptr);
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    if (def_->mutates(static_cast<int>(i))) args_.inputs[i].blob->set_error(nullptr);
  }
}

}  // namespace eagervm::vm
