// Low level: the instruction front end, for runtime builders (frameworks that
// layer their own op dispatch on eagervm). Most users want eagervm/ops.h.
#ifndef EAGERVM_INSTRUCTIONS_BUILDER_H_
#define EAGERVM_INSTRUCTIONS_BUILDER_H_

#include <cstddef>
#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eagervm/custom_op.h"
#include "eagervm/export.h"
#include "eagervm/stream.h"
#include "eagervm/tensor.h"

namespace eagervm {
namespace vm {

class Instruction;
enum class AccessMode { kRead, kWrite };

// Packs instructions into a list that is handed to the VM as one batch (one
// lock, at most one wake-up). Not thread-safe: one builder per thread. If the
// builder is destroyed without Submit(), its instructions are discarded.
class EAGERVM_EXPORT InstructionsBuilder {
 public:
  InstructionsBuilder() = default;
  ~InstructionsBuilder();
  InstructionsBuilder(const InstructionsBuilder&) = delete;
  InstructionsBuilder& operator=(const InstructionsBuilder&) = delete;

  // One OpCall instruction: reads `inputs` (writes those the op declares
  // mutated), writes `outputs`, which the caller created with the right metas.
  // Checks that every tensor is defined, ok, on `stream`'s device, and that the
  // op has a kernel for it; InvalidArgument/FailedPrecondition otherwise.
  [[nodiscard]] absl::Status Call(const OpHandle& op, absl::Span<const Tensor> inputs,
                                  absl::Span<const Tensor> outputs, const Attrs& attrs,
                                  Stream stream);
  // Frees `t`'s storage after every earlier use. Normally emitted for you when
  // the last handle drops; calling it explicitly makes later uses of `t` fail.
  [[nodiscard]] absl::Status ReleaseTensor(const Tensor& t);
  // Runs `cb(data, bytes)` on a VM thread once every earlier write (kRead) or
  // every earlier access (kWrite) of `t` is done. If `t` carries a runtime
  // error the callback is skipped and the error surfaces at the next Sync().
  [[nodiscard]] absl::Status AccessBlobByCallback(const Tensor& t,
                                                  std::function<void(void* data, size_t bytes)> cb,
                                                  AccessMode mode);
  // A barrier that runs `cb` on the scheduler thread once every instruction
  // received before it has been released. Later instructions do not wait for it.
  [[nodiscard]] absl::Status Barrier(std::function<void()> cb);
  // A barrier after all earlier instructions (the VM-wide sync point).
  [[nodiscard]] absl::Status GlobalSync();

  // Hands the list to the VM (PhysicalRun does this). Blocks only for back-pressure.
  [[nodiscard]] absl::Status Submit();

  // Internal: appends a prepared instruction.
  void Append(Instruction* instr);
  size_t size() const { return size_; }

 private:
  Instruction* head_ = nullptr;
  Instruction* tail_ = nullptr;
  size_t size_ = 0;
};

// Builds an instruction list with `build` (absl::Status(InstructionsBuilder*))
// and hands it to the VM. If `build` fails, nothing is queued.
template <typename F>
[[nodiscard]] absl::Status PhysicalRun(F&& build) {
  InstructionsBuilder builder;
  absl::Status s = std::forward<F>(build)(&builder);
  if (!s.ok()) return s;
  return builder.Submit();
}

}  // namespace vm
}  // namespace eagervm

#endif  // EAGERVM_INSTRUCTIONS_BUILDER_H_
