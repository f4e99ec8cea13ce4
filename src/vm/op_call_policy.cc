#include "vm/op_call_policy.h"

#include <exception>

#include "base/fault_injection.h"
#include "base/str_cat.h"
#include "vm/vm_context.h"
#include "vm/vm_stream.h"

namespace eagervm::vm {

void OpCallPolicy::GetAccesses(AccessList* out) const {
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    out->push_back({args_.inputs[i].blob, mutates(i)});
  }
  for (const internal::Operand& o : args_.outputs) out->push_back({o.blob, true});
}

size_t OpCallPolicy::InlineBytes() const {
  if (!may_run_inline_) return kNotInline;
  size_t bytes = 0;
  auto nbytes = [](const internal::Operand& o) {
    return static_cast<size_t>(o.meta->shape.numel()) * SizeOf(o.meta->dtype);
  };
  for (const internal::Operand& o : args_.inputs) bytes += nbytes(o);
  for (const internal::Operand& o : args_.outputs) bytes += nbytes(o);
  return bytes;
}

void OpCallPolicy::Poison(const ErrorPtr& error) {
  for (internal::Operand& o : args_.outputs) o.blob->set_error(error);
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    if (mutates(i)) args_.inputs[i].blob->set_error(error);
  }
}

void OpCallPolicy::Fail(VmStream* stream, absl::Status s) {
  auto e =
      std::make_shared<ErrorRecord>(absl::Status(s.code(), base::Cat(name_, ": ", s.message())));
  stream->context()->RecordError(e);
  Poison(e);
}

void OpCallPolicy::RefuseInput(VmStream* stream, size_t i) {
  const internal::Operand& in = args_.inputs[i];
  if (in.blob->error() != nullptr) {
    const ErrorPtr forwarded = in.blob->error();  // Poison may overwrite the one referred to
    Poison(forwarded);
    return;
  }
  Fail(stream, absl::FailedPreconditionError(
                   base::Cat("input ", i, " ", in.meta->shape.ToString(),
                             " was never written (or its storage was released)")));
}

void OpCallPolicy::Compute(VmStream* stream) {
  // Forward an error from any input without computing.
  internal::Operand* inputs = args_.inputs.data();
  for (uint32_t i = 0, n = args_.inputs.size(); i < n; ++i) {
    const BlobObject* blob = inputs[i].blob;
    if (blob->error() != nullptr || !blob->allocated()) [[unlikely]] {
      RefuseInput(stream, i);
      return;
    }
    inputs[i].data = static_cast<char*>(blob->data()) + inputs[i].offset;
  }
  for (internal::Operand& out : args_.outputs) {
    absl::Status s = out.blob->EnsureAllocated(stream->allocator());
    if (!s.ok()) {
      Fail(stream, std::move(s));
      return;
    }
    out.data = static_cast<char*>(out.blob->data()) + out.offset;
  }
  args_.stream = stream;
  KernelContext ctx = internal::KernelContextAccess::Make(&args_);
  absl::Status status;
  try {
    if (base::ShouldInjectFault(base::FaultSite::kKernel)) [[unlikely]] {
      status = absl::AbortedError("injected fault (test only): the kernel failed");
    } else {
      status = (*kernel_)(ctx);
    }
  } catch (const std::exception& ex) {
    status = absl::InternalError(base::Cat("kernel threw: ", ex.what()));
  } catch (...) {
    status = absl::InternalError("kernel threw a non-std::exception");
  }
  if (!args_.temps.empty()) [[unlikely]] {
    for (auto& [ptr, bytes] : args_.temps) stream->allocator()->Deallocate(ptr, bytes);
    args_.temps.clear();
    if (!args_.temps.is_inline()) destructor_is_noop_ = false;  // the block it grew
  }
  if (!status.ok()) [[unlikely]] {
    Fail(stream, std::move(status));
    return;
  }
  // A successful write heals an output that carried an earlier error. The
  // mutated inputs carry none: an input's error stops the call above, and
  // nothing else writes them meanwhile (their writers are ordered).
  for (internal::Operand& o : args_.outputs) o.blob->clear_error();
}

}  // namespace eagervm::vm
