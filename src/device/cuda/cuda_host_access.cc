// CudaStreamPolicy::RunHostAccess: AccessBlob instructions (the path of
// FromVector, Item, ToVector, Wait and AccessBlobByCallback) on a CUDA stream.
// The callback expects host bytes, so device storage is staged through the
// stream's pinned pool; a read's callback runs once the copy completed.
#include "base/str_cat.h"
#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"
#include "vm/access_blob_policy.h"
#include "vm/instruction.h"

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
  // Storage that exists holds the tensor's bytes (a write access allocates
  // it only for a tensor nothing wrote yet).
  const bool holds_bytes = blob->allocated();
  if (!holds_bytes) {
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
    if (holds_bytes) {
      // The callback gets the tensor's bytes, as on the CPU (it may read
      // them, or write only part of the buffer). Earlier writers on other
      // streams completed already (a host access waits for them on the
      // host); this stream's own queue is waited for here, on the scheduler
      // thread: the price of a read-modify-write of device memory from the
      // host. A tensor nothing wrote yet skips it (there are no bytes).
      absl::Status s =
          CudaStatus(cudaMemcpyAsync(*staging, data, n, cudaMemcpyDeviceToHost, stream_.get()),
                     "AccessBlobByCallback(write): cudaMemcpyAsync(device to host)");
      if (s.ok()) {
        s = CudaStatus(cudaStreamSynchronize(stream_.get()),
                       "AccessBlobByCallback(write): cudaStreamSynchronize");
        if (!s.ok()) NoteDeviceError(s);  // a fault of earlier work
      }
      if (!s.ok()) {
        pinned_->Deallocate(*staging, n);
        access->Deliver(MakeError(std::move(s)), nullptr, 0);
        return;
      }
    }
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
