#include "vm/host_access.h"

#include <cstring>

#include "base/str_cat.h"
#include "base/sync_waiter.h"
#include "eagervm/virtual_machine.h"
#include "ops/op_call_builder.h"
#include "vm/access_blob_policy.h"
#include "vm/instruction_pool.h"
#include "vm/tensor_impl.h"
#include "vm/vm_impl.h"

namespace eagervm::internal {

absl::Status ReadToHost(const Tensor& t, void* dst, size_t bytes, const char* what) {
  absl::Status s = CheckTensor(t, what, "self");
  if (!s.ok()) return s;
  vm::VmImpl* vm = VirtualMachine::Get().impl();
  s = vm->CheckMayBlock(what);
  if (!s.ok()) return s;
  const TensorImpl& impl = *t.impl();
  vm::VmStream* stream = impl.blob()->last_writer_stream();
  if (stream == nullptr) {
    absl::StatusOr<vm::VmStream*> st = ResolveStream(Stream::Current(t.device()), what);
    if (!st.ok()) return st.status();
    stream = *st;
  }
  base::SyncWaiter waiter;
  vm::ErrorPtr error;
  vm::Instruction* instr = vm::InstructionPool::Acquire();
  instr->Emplace<vm::AccessBlobPolicy>(
      // No bytes when nothing is copied out (Wait): a device tensor then
      // needs no staging copy, only its completion.
      impl.shared_blob(), static_cast<size_t>(impl.offset), dst != nullptr ? t.nbytes() : 0,
      /*write=*/false,
      [&](const vm::ErrorPtr& e, void* data, size_t n) {
        if (e != nullptr) {
          error = e;
        } else if (dst != nullptr && n > 0) {
          std::memcpy(dst, data, n < bytes ? n : bytes);
        }
        waiter.Signal();
      },
      /*short_callback=*/true);
  instr->set_stream(stream);
  s = SubmitInstruction(instr);
  if (!s.ok()) return s;
  waiter.Wait(vm->sync_spin_ns());
  if (error != nullptr) {
    error->MarkReported();
    return error->status;
  }
  return absl::OkStatus();
}

}  // namespace eagervm::internal
