// Builder: the runtime's side of InstructionsBuilder. Creation, copies, host
// reads, releases and barriers are built through these methods inside
// PhysicalRun; a plain op call skips the builder object
// (vm/intake/submit_kernel_call.h) but is constructed by the same code
// (EagerBuilder::NewKernelCall), and inside a build callback or a capture it
// comes here too (CallKernel). Two implementations exist: EagerBuilder
// (vm/intake/eager_builder.h) turns each call into an instruction and
// submits the batch; a recording
// builder (graph capture) installed on a thread with ScopedRecorder
// (vm/intake/physical_run.h) records them instead, without any op knowing.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_BUILDER_H_
#define EAGERVM_VM_INTAKE_BUILDER_H_

#include <cstddef>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/instructions_builder.h"
#include "vm/kernel_call.h"
#include "vm/policies/access_blob_policy.h"

namespace eagervm::vm {

class BlobObject;
class LaunchTarget;
class VmStream;

// The operands of one kernel call. Tensors are checked by the caller (ops
// validate and infer first); spans need only live for the call.
struct KernelCallArgs {
  absl::Span<const Tensor* const> inputs;
  absl::Span<const Tensor* const> outputs;
  absl::Span<const Scalar> scalars;  // at most kMaxScalars (built-ins' scalar arguments)
  // Null, or pointing at null, when there are none; lives for the call (the
  // instruction takes a reference of its own).
  const std::shared_ptr<const Attrs>* attrs = nullptr;
};

class Builder : public InstructionsBuilder {
 public:
  virtual ~Builder() = default;

  // One OpCall of `call` on `stream`. Errors (naming call.name): the stream
  // does not exist, too many scalars.
  virtual absl::Status CallKernel(const KernelCall& call, const KernelCallArgs& args,
                                  Stream stream) = 0;
  // `dst = src` for tensors of equal meta on different devices, on the copy
  // stream of the CUDA device involved. `op` names the caller in errors.
  virtual absl::Status CopyAcrossDevices(const Tensor& dst, const Tensor& src, const char* op) = 0;
  // Reads `t` for the runtime itself (Wait, Item, ToVector, CopyToHost):
  // `cb` gets the storage's error or `bytes` of data (0: completion only).
  // `cb` is short and never blocks, so a small read may run on the scheduler.
  virtual absl::Status SyncRead(const Tensor& t, size_t bytes, BlobCallback cb,
                                const char* what) = 0;
  // Frees `blob` in its producer stream's order (the last handle dropped).
  virtual absl::Status ReleaseBlob(std::shared_ptr<BlobObject> blob) = 0;
  // Writes `t` from the host for the runtime itself (FromVector): `cb` gets
  // the storage's error or its bytes, overwrites every byte it is given, is
  // short and never blocks; on a device it may run on the scheduler thread,
  // into a staging buffer that is not filled from the device first.
  virtual absl::Status HostWrite(const Tensor& t, BlobCallback cb, const char* what) = 0;
  // The public methods, for both builders. AccessBlob runs a *user's*
  // callback: always on a CPU stream's thread, never on the scheduler; a
  // device tensor is staged through a CPU tensor (copied out first, and for
  // a write copied back after the callback).
  virtual absl::Status AccessBlob(const Tensor& t, BlobCallback cb, bool write,
                                  const char* what) = 0;
  virtual absl::Status AddBarrier(std::function<void()> cb, const char* what) = 0;
  // Part `part` of `target` as one instruction on `stream` (a graph plan's
  // segment). The caller notes the writes on the storages it touches.
  virtual absl::Status Launch(std::shared_ptr<LaunchTarget> target, int part, VmStream* stream) = 0;
  // A storage was made on this thread (NewTensor) while this builder is its
  // recorder: graph capture tells its own values from parameters this way.
  virtual void NoteNewStorage(const std::shared_ptr<BlobObject>& blob) {}
  // An op on this thread was rejected (an error tensor was made) while this
  // builder is its recorder: capture fails even if the caller ignores it.
  virtual void NoteRejection(const absl::Status& status) {}

  // Recording builders only (PhysicalRun calls them around `build`): a
  // position in the recording, and dropping what was recorded after it.
  virtual size_t Mark() { return 0; }
  virtual void Rollback(size_t mark) {}

  static Builder* From(InstructionsBuilder* b) { return static_cast<Builder*>(b); }
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_BUILDER_H_
