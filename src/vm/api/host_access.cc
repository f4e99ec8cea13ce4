#include "vm/api/host_access.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/donate.h"
#include "vm/lifecycle/handoff.h"
#include "vm/lifecycle/vm_impl.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

absl::Status ReadToHost(const Tensor& t, void* dst, size_t bytes, const char* what) {
  absl::Status s = CheckTensor(t, what, "self");
  if (!s.ok()) return s;
  s = vm::CheckMayBlock(what);
  if (!s.ok()) return s;
  vm::VmImpl& vm = vm::ProcessVm();
  const size_t copied = dst != nullptr ? std::min(bytes, t.nbytes()) : 0;
  // Every write of the storage has run: no instruction is needed at all (a
  // capture records the read instead).
  bool busy = false;
  if (vm.drained()) [[unlikely]] {  // after Shutdown(): the final bytes, no instruction
    const internal::TensorImpl& impl = *t.impl();
    return vm.ReadAfterShutdown(*impl.blob(), t.device(), static_cast<size_t>(impl.offset), dst,
                                copied, what);
  }
  if (t.device().is_cpu() && vm::CurrentRecorder() == nullptr) {
    const internal::TensorImpl& impl = *t.impl();
    if (std::optional<absl::Status> read =
            vm.ReadIfFinal(*impl.blob(), static_cast<size_t>(impl.offset), dst, copied, &busy)) {
      return *read;
    }
  }
  vm::HandoffHolder holder(vm.options().hang_timeout_ms > 0);
  vm::Handoff* h = holder.get();
  // An idle VM (not found busy just now): the read runs on this thread, with
  // no wake-up either way.
  vm::DonateScope donate(t.device().is_cpu() && !busy ? vm::DonateMode::kShort
                                                      : vm::DonateMode::kNone);
  // No bytes when nothing is copied out (Wait): a device tensor then needs no
  // staging copy, only its completion.
  s = vm::PhysicalRun([&](vm::Builder* b) {
    return b->SyncRead(
        t, dst != nullptr ? t.nbytes() : 0,
        [h, keep = holder.keep(), dst, bytes](const vm::ErrorPtr& e, void* data, size_t n) {
          if (!h->Claim()) return;  // the reader gave up (hang timeout): dst may be gone
          if (e != nullptr) {
            h->error = e;
          } else if (dst != nullptr && n > 0) {
            std::memcpy(dst, data, n < bytes ? n : bytes);
          }
          h->Signal();
        },
        what);
  });
  if (!s.ok()) return s;
  s = h->Await(vm, what);
  if (!s.ok()) return s;
  if (h->error != nullptr) {
    h->error->MarkReported();
    return h->error->status;
  }
  return absl::OkStatus();
}

}  // namespace eagervm::internal
