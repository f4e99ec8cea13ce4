// ReleaseTensorPolicy: frees a storage on its producer stream. It *writes* the
// storage's dependence, so it runs after every earlier reader and writer: on
// the same stream by stream order, on other streams only once those are done.
// Freed memory is then reusable by the next instruction of the producer stream
// without a host wait (per-stream allocators).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_POLICIES_RELEASE_TENSOR_POLICY_H_
#define EAGERVM_VM_POLICIES_RELEASE_TENSOR_POLICY_H_

#include <memory>

#include "vm/blob_object.h"
#include "vm/engine/instruction_policy.h"

namespace eagervm::vm {

class ReleaseTensorPolicy final : public InstructionPolicy {
 public:
  explicit ReleaseTensorPolicy(std::shared_ptr<BlobObject> blob) : blob_(std::move(blob)) {}
  const char* name() const override { return "ReleaseTensor"; }
  void GetAccesses(AccessList* out) const override { out->push_back({blob_.get(), true}); }
  void Compute(VmStream*) override { blob_->Free(); }
  // Returning memory to the stream's allocator is short; a user's deleter
  // (FromBlob, FromDLPack) may block, so that one goes to the worker.
  size_t InlineBytes() const override { return runs_user_deleter() ? kNotInline : 0; }
  // The memory goes back to its owner, not to a stream-ordered allocator: on
  // a device whose work is asynchronous (CUDA), the kernels queued before the
  // release must be finished first. The builder queues such a release on a
  // CPU stream (its edges wait for completion; the deleter runs on its
  // worker); a device stream that gets one anyway synchronises first
  // (device/cuda/cuda_stream_policy.cc).
  bool runs_user_deleter() const { return blob_->has_user_deleter(); }

 private:
  std::shared_ptr<BlobObject> blob_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_POLICIES_RELEASE_TENSOR_POLICY_H_
