#include "device/cuda/copy_policy.h"

#include <cstring>

#include "base/str_cat.h"
#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"
#include "ops/op_call_builder.h"
#include "vm/instruction_pool.h"
#include "vm/tensor_impl.h"
#include "vm/vm_impl.h"
#include "vm/vm_stream.h"

namespace eagervm::device::cuda {
namespace {

bool IsPinned(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace

void CopyPolicy::Fail(absl::Status s) {
  auto e = std::make_shared<vm::ErrorRecord>(absl::Status(s.code(), base::Cat(op_, ": ", s.message())));
  VirtualMachine::Get().impl()->RecordError(e);
  dst_->set_error(e);
}

void CopyPolicy::Compute(vm::VmStream* stream) {
  if (src_->error() != nullptr) {
    dst_->set_error(src_->error());  // forward, do not copy
    return;
  }
  absl::Status s = Copy(stream);
  if (!s.ok()) {
    Fail(std::move(s));
    return;
  }
  dst_->set_error(nullptr);  // a successful write heals the storage
}

absl::Status CopyPolicy::Copy(vm::VmStream* stream) {
  CudaStreamPolicy* policy = AsCudaPolicy(stream->policy());
  if (policy == nullptr) return absl::InternalError("a device copy ran on a non-CUDA stream");
  if (!src_->allocated()) {
    return absl::FailedPreconditionError(
        "the source was never written (or its storage was released)");
  }
  const bool to_host = dst_->device().is_cpu();
  // A destination allocated here is pinned and seen by nobody yet: the DMA
  // may write it directly. Existing host memory may have readers whose host
  // callbacks run later, so it is written only by a deferred host copy, in
  // this stream's order.
  const bool fresh = !dst_->allocated();
  memory::Allocator* a = to_host ? static_cast<memory::Allocator*>(policy->pinned()) : policy->allocator();
  absl::Status s = dst_->EnsureAllocated(a);
  if (!s.ok()) return s;
  if (bytes_ == 0) return absl::OkStatus();
  char* dst = static_cast<char*>(dst_->data()) + dst_offset_;
  const char* src = static_cast<const char*>(src_->data()) + src_offset_;
  cudaStream_t cs = policy->cuda_stream();
  if (src_->device().is_cpu()) {  // host to device
    if (IsPinned(src)) {
      EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes_, cudaMemcpyHostToDevice, cs));
      return absl::OkStatus();
    }
    // Pageable memory would make the copy synchronous on the scheduler
    // thread: stage it (a host memcpy, then an async DMA).
    absl::StatusOr<void*> staging = policy->pinned()->Allocate(bytes_);
    if (!staging.ok()) return staging.status();
    std::memcpy(*staging, src, bytes_);
    cudaError_t e = cudaMemcpyAsync(dst, *staging, bytes_, cudaMemcpyHostToDevice, cs);
    policy->pinned()->Deallocate(*staging, bytes_);  // reused once the DMA completed
    return CudaStatus(e, "cudaMemcpyAsync(host to device)");
  }
  if (to_host) {  // device to host
    if (fresh) {
      EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes_, cudaMemcpyDeviceToHost, cs));
      return absl::OkStatus();
    }
    absl::StatusOr<void*> staging = policy->pinned()->Allocate(bytes_);
    if (!staging.ok()) return staging.status();
    cudaError_t e = cudaMemcpyAsync(*staging, src, bytes_, cudaMemcpyDeviceToHost, cs);
    if (e != cudaSuccess) {
      policy->pinned()->Deallocate(*staging, bytes_);
      return CudaStatus(e, "cudaMemcpyAsync(device to host)");
    }
    policy->CopyToHostWhenDone(dst, *staging, bytes_);
    return absl::OkStatus();
  }
  // Device to device across GPUs (peer copy; staged by the driver if needed).
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemcpyPeerAsync(dst, dst_->device().index(), src,
                                                   src_->device().index(), bytes_, cs));
  return absl::OkStatus();
}

absl::Status SubmitCrossDeviceCopy(const Tensor& dst, const Tensor& src, std::string_view op) {
  const Device target = dst.device().is_cpu() ? src.device() : dst.device();
  const int index = dst.device().is_cpu() ? kDeviceToHostStreamIndex : kHostToDeviceStreamIndex;
  // The device's availability first: its message is the useful one.
  absl::StatusOr<vm::VmStream*> stream = internal::ResolveStream(Stream(target, index), op);
  if (!stream.ok()) return stream.status();
  if (!src.device().is_cpu() && !dst.device().is_cpu()) {
    absl::StatusOr<vm::VmStream*> other = internal::ResolveStream(Stream(src.device(), 0), op);
    if (!other.ok()) return other.status();
  }
  const internal::TensorImpl& d = *dst.impl();
  const internal::TensorImpl& s = *src.impl();
  vm::Instruction* instr = vm::InstructionPool::Acquire();
  const char* name = op == "To" ? "To" : op == "CopyInto" ? "CopyInto" : "DeviceCopy";
  instr->Emplace<CopyPolicy>(name, d.shared_blob(), static_cast<size_t>(d.offset), s.shared_blob(),
                             static_cast<size_t>(s.offset), dst.nbytes());
  instr->set_stream(*stream);
  d.blob()->NoteWrite(*stream);
  return internal::SubmitInstruction(instr);
}

}  // namespace eagervm::device::cuda
