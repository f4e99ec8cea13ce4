// CudaStreamPolicy::RunHostAccess: AccessBlob instructions (the path of
// FromVector, Item, ToVector, Wait and AccessBlobByCallback) on a CUDA stream.
// The callback expects host bytes, so device storage is staged through the
// stream's pinned pool; a read's callback runs once the copy completed. Only
// the runtime's brief callbacks come here (host reads, FromVector): they run
// on the scheduler thread; users' callbacks are staged through a CPU tensor
// by the builder (vm/intake/eager_builder.cc) and run on a CPU stream.
#include "base/str_cat.h"
#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"
#include "vm/engine/instruction.h"
#include "vm/policies/access_blob_policy.h"

namespace eagervm::device::cuda {
namespace {
vm::ErrorPtr MakeError(absl::Status s) { return std::make_shared<vm::ErrorRecord>(std::move(s)); }
}  // namespace

void CudaStreamPolicy::RunHostAccess(vm::Instruction* instr, vm::AccessBlobPolicy* access) {
  vm::BlobObject* blob = access->blob().get();
  const size_t n = access->bytes();
  if (blob->error() != nullptr) {
    access->Deliver(blob->error(), nullptr, 0);
    return;
  }
  if (!blob->allocated()) {
    if (!access->write()) {
      access->Deliver(
          MakeError(absl::FailedPreconditionError(
              "reading a tensor whose storage was never written (or was already released)")),
          nullptr, 0);
      return;
    }
    memory::Allocator* a =
        blob->device().is_cpu() ? static_cast<memory::Allocator*>(pinned_.get()) : allocator_.get();
    absl::Status s = blob->EnsureAllocated(a);
    if (!s.ok()) {
      access->Deliver(MakeError(std::move(s)), nullptr, 0);
      return;
    }
  }
  char* data = static_cast<char*>(blob->data()) + access->offset();
  if (blob->device().is_cpu() || n == 0) {
    // Host memory written by earlier work of this stream (a D2H copy), or a
    // Wait(): hand it over once that work has completed.
    deferred_.push_back(Deferred{Deferred::Kind::kDeliver, instr->policy_word, access, nullptr,
                                 blob->device().is_cpu() ? data : nullptr, nullptr, n});
    RecordEvent();
    return;
  }
  absl::StatusOr<void*> staging = pinned_->Allocate(n);
  if (!staging.ok()) {
    access->Deliver(MakeError(staging.status()), nullptr, 0);
    return;
  }
  if (access->write()) {
    // Only the runtime's own writes come here (Builder::HostWrite:
    // FromVector), and they overwrite every byte: the staging block is not
    // filled from the device first. A user's AccessBlobByCallback never
    // reaches a CUDA stream: the builder stages it through a CPU tensor, so
    // the callback runs on a CPU stream's thread with the tensor's bytes.
    // The host fills the staging block now; the upload is stream-ordered and
    // the block is reused only after it completed (PinnedHostPool).
    access->Deliver(nullptr, *staging, n);
    cudaError_t e = cudaMemcpyAsync(data, *staging, n, cudaMemcpyHostToDevice, stream_.get());
    pinned_->Deallocate(*staging, n);
    if (e != cudaSuccess) {
      absl::Status s = CudaStatus(e, "cudaMemcpyAsync(host to device)");
      blob->set_error(MakeError(s));
      ReportError(s);
    }
    return;
  }
  cudaError_t e = cudaMemcpyAsync(*staging, data, n, cudaMemcpyDeviceToHost, stream_.get());
  if (e != cudaSuccess) {
    pinned_->Deallocate(*staging, n);
    access->Deliver(MakeError(CudaStatus(e, "cudaMemcpyAsync(device to host)")), nullptr, 0);
    return;
  }
  deferred_.push_back(Deferred{Deferred::Kind::kDeliverStaging, instr->policy_word, access, nullptr,
                               nullptr, *staging, n});
  RecordEvent();
}

}  // namespace eagervm::device::cuda
