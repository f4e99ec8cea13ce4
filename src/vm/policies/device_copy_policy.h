// DeviceCopyPolicy: one copy between devices (host to device, device to host,
// or across GPUs), run on a copy stream of the device involved. It reads the
// source storage and writes the destination, so the engine orders it like any
// instruction; the copy itself is the stream policy's (StreamPolicy::
// CopyAcrossDevices), so the VM names no backend.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_POLICIES_DEVICE_COPY_POLICY_H_
#define EAGERVM_VM_POLICIES_DEVICE_COPY_POLICY_H_

#include <cstddef>
#include <memory>

#include "vm/blob_object.h"
#include "vm/engine/instruction_policy.h"

namespace eagervm::vm {

// Stream indices of the per-device copy streams; compute streams are below.
inline constexpr int kHostToDeviceStreamIndex = 62;
inline constexpr int kDeviceToHostStreamIndex = 63;

// What to copy: `bytes` from src (+ src_offset) to dst (+ dst_offset).
struct DeviceCopy {
  BlobObject* dst;
  size_t dst_offset;
  const BlobObject* src;
  size_t src_offset;
  size_t bytes;
};

class DeviceCopyPolicy final : public InstructionPolicy {
 public:
  // `op` names the caller in errors ("To", "CopyInto"); it must live forever.
  // `skip_unwritten_source`: a source with no storage when the copy runs
  // leaves dst as it is (the stand-in of a write access, which needs no
  // bytes) instead of failing.
  DeviceCopyPolicy(const char* op, std::shared_ptr<BlobObject> dst, size_t dst_offset,
                   std::shared_ptr<BlobObject> src, size_t src_offset, size_t bytes,
                   bool skip_unwritten_source = false)
      : op_(op),
        dst_(std::move(dst)),
        src_(std::move(src)),
        dst_offset_(dst_offset),
        src_offset_(src_offset),
        bytes_(bytes),
        skip_unwritten_source_(skip_unwritten_source) {}
  const char* name() const override { return op_; }
  void GetAccesses(AccessList* out) const override {
    out->push_back({src_.get(), false});
    out->push_back({dst_.get(), true});
  }
  // Copies touch host memory outside a device's own order.
  bool TouchesHostMemory() const override { return true; }
  void Compute(VmStream* stream) override;

 private:
  const char* op_;
  std::shared_ptr<BlobObject> dst_, src_;
  size_t dst_offset_, src_offset_, bytes_;
  bool skip_unwritten_source_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_POLICIES_DEVICE_COPY_POLICY_H_
