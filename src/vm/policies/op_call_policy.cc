#include "vm/policies/op_call_policy.h"

#include <exception>

#include "base/check.h"
#include "base/fault_injection.h"
#include "base/str_cat.h"
#include "vm/engine/instruction.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::vm {

// The largest policy; Instruction::kPolicyBufferSize is sized for it.
static_assert(sizeof(OpCallPolicy) <= Instruction::kPolicyBufferSize,
              "OpCallPolicy outgrew the instruction's inline policy buffer");

void OpCallPolicy::GetAccesses(AccessList*) const {
  // Never called: EagerBuilder::NewKernelCall records an op call's accesses
  // and inline bytes as it builds the instruction (Instruction::prepared),
  // the only way one is built. A second copy here would only drift from it.
  base::internal::DCheckFailed(__FILE__, __LINE__, __func__, "prepared",
                               "op calls are prepared by EagerBuilder::NewKernelCall");
}

void OpCallPolicy::Poison(const ErrorPtr& error) {
  for (internal::Operand& o : args_.outputs) o.blob->set_error(error);
  for (size_t i = 0; i < args_.inputs.size(); ++i) {
    if (args_.mutated_mask.has(i)) args_.inputs[i].blob->set_error(error);
  }
}

void OpCallPolicy::Fail(VmStream* stream, absl::Status s) {
  auto e =
      std::make_shared<ErrorRecord>(absl::Status(s.code(), base::Cat(name_, ": ", s.message())));
  stream->context()->RecordError(e);
  Poison(e);
}

namespace {

size_t Bytes(const internal::Operand& o) {
  return static_cast<size_t>(o.meta->shape.numel()) * SizeOf(o.meta->dtype);
}

// Whether the operand's bytes hold written values (a partly written storage
// may have bytes no write covered).
bool Readable(const internal::Operand& o) {
  if (!o.blob->partly_written()) [[likely]]
    return true;
  return o.blob->Written(static_cast<size_t>(o.offset), static_cast<size_t>(o.offset) + Bytes(o));
}

// After a successful write of `o`: heal (a write of the whole storage) or
// track the bytes written (a view). `fresh`: the write allocated it.
void NoteWritten(internal::Operand& o, bool fresh) {
  // An op's own fresh output reads its storage's meta (no multiply).
  if (o.offset == 0 && o.meta == o.blob->meta()) [[likely]] {
    o.blob->NoteWrittenWhole();
    return;
  }
  const size_t begin = static_cast<size_t>(o.offset);
  o.blob->NoteWritten(begin, begin + Bytes(o), fresh);
}

}  // namespace

void OpCallPolicy::RefuseInput(VmStream* stream, size_t i) {
  const internal::Operand& in = args_.inputs[i];
  if (in.blob->error() != nullptr) {
    const ErrorPtr forwarded = in.blob->error();  // Poison may overwrite the one referred to
    Poison(forwarded);
    return;
  }
  if (in.blob->allocated()) {
    Fail(stream, absl::FailedPreconditionError(base::Cat(
                     "input ", i, " ", internal::InputShapeText(args_, i),
                     " reads bytes of its storage that no write covered (a write through a view "
                     "wrote only part of a storage that was never written)")));
    return;
  }
  Fail(stream, absl::FailedPreconditionError(
                   base::Cat("input ", i, " ", internal::InputShapeText(args_, i),
                             " was never written (or its storage was released)")));
}

// Allocates `o`'s storage on its first write; true in `*fresh` if it did.
absl::Status OpCallPolicy::PrepareWrite(VmStream* stream, internal::Operand& o, bool* fresh) {
  *fresh = !o.blob->allocated();
  absl::Status s = o.blob->EnsureAllocated(stream->allocator());
  if (!s.ok()) return s;
  o.data = static_cast<char*>(o.blob->data()) + o.offset;
  return absl::OkStatus();
}

void OpCallPolicy::Compute(VmStream* stream) {
  // Forward an error from any input without computing. An overwritten input
  // is not read: it may be unwritten or carry an error (the write heals it).
  // It is allocated only once every read input was checked: allocating it
  // first would make a read of the same never-written storage (CopyInto(x,
  // x), a copy between two views of it) look written.
  internal::Operand* inputs = args_.inputs.data();
  uint64_t fresh_inputs = 0, fresh_outputs = 0;  // storages this call allocated, by index
  uint64_t to_prepare = 0;                       // overwritten inputs not yet writable
  for (uint32_t i = 0, n = args_.inputs.size(); i < n; ++i) {
    const BlobObject* blob = inputs[i].blob;
    if (blob->error() != nullptr || !blob->allocated() || !Readable(inputs[i])) [[unlikely]] {
      if (!overwritten_mask_.has(i)) {
        RefuseInput(stream, i);
        return;
      }
      to_prepare |= uint64_t{1} << i;  // i < 64: overwritten inputs are mutated
      continue;
    }
    inputs[i].data = static_cast<char*>(blob->data()) + inputs[i].offset;
  }
  for (uint32_t i = 0; to_prepare != 0; ++i, to_prepare >>= 1) [[unlikely]] {
      if ((to_prepare & 1) == 0) continue;
      bool fresh = false;
      if (absl::Status s = PrepareWrite(stream, inputs[i], &fresh); !s.ok()) {
        Fail(stream, std::move(s));
        return;
      }
      if (fresh) fresh_inputs |= uint64_t{1} << i;
    }
  for (uint32_t k = 0, n = args_.outputs.size(); k < n; ++k) {
    bool fresh = false;
    if (absl::Status s = PrepareWrite(stream, args_.outputs[k], &fresh); !s.ok()) {
      Fail(stream, std::move(s));
      return;
    }
    if (fresh && k < 64) fresh_outputs |= uint64_t{1} << k;
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
  // A successful write of a whole storage heals an error it carried; a write
  // of part of one (through a view) heals nothing and, on a storage it
  // allocated, records which bytes hold values. Mutated inputs that are read
  // carry no error (it stops the call above; their writers are ordered).
  for (uint32_t k = 0, n = args_.outputs.size(); k < n; ++k) {
    NoteWritten(args_.outputs[k], k < 64 && ((fresh_outputs >> k) & 1));
  }
  if (!overwritten_mask_.empty()) [[unlikely]] {
    for (uint32_t i = 0, n = args_.inputs.size(); i < n && i < 64; ++i) {
      if (overwritten_mask_.has(i)) NoteWritten(inputs[i], (fresh_inputs >> i) & 1);
    }
  }
}

}  // namespace eagervm::vm
