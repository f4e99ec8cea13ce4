// CopyPolicy: one copy between devices (host to device, device to host, or
// device to device across GPUs), run on a CUDA copy stream. It reads the
// source storage and writes the destination, like any instruction, so the
// engine orders it; the CUDA stream policy makes it asynchronous:
//  - D2H into a new CPU tensor lands in pinned memory of the D2H stream's
//    pool (the tensor then lives there until released);
//  - H2D from pageable memory is staged through a pinned block first;
//  - D2H into existing host memory (CopyInto) goes through a pinned block
//    copied out once the transfer completed (in stream order with the host
//    callbacks of earlier reads).
// Copies touch host memory outside the device's order, so their edges to
// other CUDA streams wait on the host (CudaStreamPolicy::OrdersOnDevice).
#ifndef EAGERVM_DEVICE_CUDA_COPY_POLICY_H_
#define EAGERVM_DEVICE_CUDA_COPY_POLICY_H_

#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "eagervm/tensor.h"
#include "vm/blob_object.h"
#include "vm/instruction_policy.h"

namespace eagervm::device::cuda {

// Stream indices of the per-device copy streams; compute streams are below.
inline constexpr int kHostToDeviceStreamIndex = 62;
inline constexpr int kDeviceToHostStreamIndex = 63;

class CopyPolicy final : public vm::InstructionPolicy {
 public:
  CopyPolicy(const char* op, std::shared_ptr<vm::BlobObject> dst, size_t dst_offset,
             std::shared_ptr<vm::BlobObject> src, size_t src_offset, size_t bytes)
      : op_(op), dst_(std::move(dst)), src_(std::move(src)), dst_offset_(dst_offset),
        src_offset_(src_offset), bytes_(bytes) {}
  const char* name() const override { return op_; }
  void GetAccesses(vm::AccessList* out) const override {
    out->push_back({src_.get(), false});
    out->push_back({dst_.get(), true});
  }
  void Compute(vm::VmStream* stream) override;

 private:
  absl::Status Copy(vm::VmStream* stream);
  void Fail(absl::Status s);

  const char* op_;
  std::shared_ptr<vm::BlobObject> dst_, src_;
  size_t dst_offset_, src_offset_, bytes_;
};

// Queues `dst = src` for tensors of equal shape and dtype on different
// devices, at least one of them CUDA. FailedPrecondition (naming `op`) when
// a CUDA device is not available.
absl::Status SubmitCrossDeviceCopy(const Tensor& dst, const Tensor& src, std::string_view op);

}  // namespace eagervm::device::cuda

#endif  // EAGERVM_DEVICE_CUDA_COPY_POLICY_H_
