#include "vm/host_access.h"

#include <cstring>

#include "base/sync_waiter.h"
#include "vm/physical_run.h"
#include "vm/process_vm.h"
#include "vm/tensor_impl.h"
#include "vm/vm_impl.h"

namespace eagervm::internal {

absl::Status ReadToHost(const Tensor& t, void* dst, size_t bytes, const char* what) {
  absl::Status s = CheckTensor(t, what, "self");
  if (!s.ok()) return s;
  s = vm::CheckMayBlock(what);
  if (!s.ok()) return s;
  base::SyncWaiter waiter;
  vm::ErrorPtr error;
  // No bytes when nothing is copied out (Wait): a device tensor then needs no
  // staging copy, only its completion.
  s = vm::PhysicalRun([&](vm::Builder* b) {
    return b->SyncRead(
        t, dst != nullptr ? t.nbytes() : 0,
        [&](const vm::ErrorPtr& e, void* data, size_t n) {
          if (e != nullptr) {
            error = e;
          } else if (dst != nullptr && n > 0) {
            std::memcpy(dst, data, n < bytes ? n : bytes);
          }
          waiter.Signal();
        },
        what);
  });
  if (!s.ok()) return s;
  waiter.Wait(vm::ProcessVm().sync_spin_ns());
  if (error != nullptr) {
    error->MarkReported();
    return error->status;
  }
  return absl::OkStatus();
}

}  // namespace eagervm::internal
