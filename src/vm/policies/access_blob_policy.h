// AccessBlobPolicy: runs a host callback on a storage once its dependences
// allow (read: after the last write; write: after every earlier access). The
// callback receives the storage's error, if it carries one, instead of data.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_POLICIES_ACCESS_BLOB_POLICY_H_
#define EAGERVM_VM_POLICIES_ACCESS_BLOB_POLICY_H_

#include <cstddef>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "vm/blob_object.h"
#include "vm/engine/instruction_policy.h"

namespace eagervm::vm {

class VmContext;
class VmStream;

// `data` points at the view (base + offset); `error` is the storage's runtime
// error or null.
using BlobCallback = std::function<void(const ErrorPtr& error, void* data, size_t bytes)>;

class AccessBlobPolicy final : public InstructionPolicy {
 public:
  // `runtime_callback`: the runtime's own callback (host reads), brief and
  // never blocking, so the scheduler may run a small access itself. User
  // callbacks go to the stream's worker, and an exception they throw is
  // reported by the next Sync().
  // `context`: the VM's, for a callback that throws.
  AccessBlobPolicy(VmContext* context, std::shared_ptr<BlobObject> blob, size_t offset,
                   size_t bytes, bool write, BlobCallback cb, bool runtime_callback = false)
      : context_(context),
        blob_(std::move(blob)),
        offset_(offset),
        bytes_(bytes),
        write_(write),
        runtime_callback_(runtime_callback),
        cb_(std::move(cb)) {}
  const char* name() const override { return write_ ? "AccessBlob(write)" : "AccessBlob(read)"; }
  void GetAccesses(AccessList* out) const override { out->push_back({blob_.get(), write_}); }
  void Compute(VmStream* stream) override;
  size_t InlineBytes() const override { return runtime_callback_ ? bytes_ : kNotInline; }
  bool TouchesHostMemory() const override { return true; }

  // For stream policies that must stage the bytes through host-visible
  // memory (CUDA): what is accessed, and how to hand the callback the staged
  // bytes (or an error) instead of Compute().
  const std::shared_ptr<BlobObject>& blob() const { return blob_; }
  size_t offset() const { return offset_; }
  size_t bytes() const { return bytes_; }
  bool write() const { return write_; }
  // Runs the callback (on the stream's thread or the scheduler); a throwing
  // callback's exception is filed with the VM's error ledger.
  void Deliver(const ErrorPtr& error, void* data, size_t bytes);

 private:
  VmContext* context_;
  std::shared_ptr<BlobObject> blob_;
  size_t offset_;
  size_t bytes_;
  bool write_;
  bool runtime_callback_;
  BlobCallback cb_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_POLICIES_ACCESS_BLOB_POLICY_H_
