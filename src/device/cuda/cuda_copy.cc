// CudaStreamPolicy::CopyAcrossDevices: the copies between devices that
// vm::DeviceCopyPolicy asks of a CUDA copy stream.
//  - D2H into a new CPU tensor lands in pinned memory of the D2H stream's
//    pool (the tensor then lives there until released);
//  - H2D from pageable memory is staged through a pinned block first;
//  - D2H into existing host memory (CopyInto) goes through a pinned block
//    copied out once the transfer completed (in stream order with the host
//    callbacks of earlier reads).
// Copies touch host memory outside the device's order, so their edges to
// other CUDA streams wait on the host (DeviceCopyPolicy::TouchesHostMemory).
#include <cstring>

#include "device/cuda/cuda_status.h"
#include "device/cuda/cuda_stream_policy.h"
#include "vm/blob_object.h"
#include "vm/policies/device_copy_policy.h"

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

absl::Status CudaStreamPolicy::CopyAcrossDevices(vm::VmStream* stream, const vm::DeviceCopy& c) {
  vm::BlobObject* dst_blob = c.dst;
  const vm::BlobObject* src_blob = c.src;
  const bool to_host = dst_blob->device().is_cpu();
  // A destination allocated here is pinned and seen by nobody yet: the DMA
  // may write it directly. Existing host memory may have readers whose host
  // callbacks run later, so it is written only by a deferred host copy, in
  // this stream's order.
  const bool fresh = !dst_blob->allocated();
  memory::Allocator* a = to_host ? static_cast<memory::Allocator*>(pinned()) : allocator();
  absl::Status s = dst_blob->EnsureAllocated(a);
  if (!s.ok()) return s;
  if (c.bytes == 0) return absl::OkStatus();
  char* dst = static_cast<char*>(dst_blob->data()) + c.dst_offset;
  const char* src = static_cast<const char*>(src_blob->data()) + c.src_offset;
  cudaStream_t cs = cuda_stream();
  if (src_blob->device().is_cpu()) {  // host to device
    if (IsPinned(src)) {
      EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, c.bytes, cudaMemcpyHostToDevice, cs));
      return absl::OkStatus();
    }
    // Pageable memory would make the copy synchronous on the scheduler
    // thread: stage it (a host memcpy, then an async DMA).
    absl::StatusOr<void*> staging = pinned()->Allocate(c.bytes);
    if (!staging.ok()) return staging.status();
    std::memcpy(*staging, src, c.bytes);
    cudaError_t e = cudaMemcpyAsync(dst, *staging, c.bytes, cudaMemcpyHostToDevice, cs);
    pinned()->Deallocate(*staging, c.bytes);  // reused once the DMA completed
    return CudaStatus(e, "cudaMemcpyAsync(host to device)");
  }
  if (to_host) {  // device to host
    if (fresh) {
      EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, c.bytes, cudaMemcpyDeviceToHost, cs));
      // Nothing else would mark the new tensor if the device fails before
      // the DMA ran: its readers (Item, ToVector, CPU ops, staged read
      // callbacks) would get the pinned block's old bytes with an OK status.
      PoisonOnDeviceError(dst_blob);
      return absl::OkStatus();
    }
    absl::StatusOr<void*> staging = pinned()->Allocate(c.bytes);
    if (!staging.ok()) return staging.status();
    cudaError_t e = cudaMemcpyAsync(*staging, src, c.bytes, cudaMemcpyDeviceToHost, cs);
    if (e != cudaSuccess) {
      pinned()->Deallocate(*staging, c.bytes);
      return CudaStatus(e, "cudaMemcpyAsync(device to host)");
    }
    CopyToHostWhenDone(dst_blob, dst, *staging, c.bytes);
    return absl::OkStatus();
  }
  // Device to device across GPUs (peer copy; staged by the driver if needed).
  EAGERVM_CUDA_RETURN_IF_ERROR(cudaMemcpyPeerAsync(dst, dst_blob->device().index(), src,
                                                   src_blob->device().index(), c.bytes, cs));
  return absl::OkStatus();
}

}  // namespace eagervm::device::cuda
