// Low level: the instruction front end, for runtime builders (frameworks that
// layer their own op dispatch on eagervm). Most users want eagervm/ops.h.
//
// Every instruction eagervm runs — each op, creation, copy, host read,
// release and sync — is constructed by the same builder code and handed to
// the VM; creation, copies, reads, releases and syncs are built inside
// PhysicalRun, and a plain op call takes an inline shortcut of the same code
// (one instruction, no batch). So anything built here orders with the
// runtime's own ops by the ordinary read/write rules, and a graph capture on
// this thread records it instead of running it (ops included).
#ifndef EAGERVM_INSTRUCTIONS_BUILDER_H_
#define EAGERVM_INSTRUCTIONS_BUILDER_H_

#include <cstddef>
#include <functional>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eagervm/custom_op.h"
#include "eagervm/export.h"
#include "eagervm/stream.h"
#include "eagervm/tensor.h"

namespace eagervm {
namespace vm {

class Builder;
enum class AccessMode { kRead, kWrite };

// Collects the instructions of one PhysicalRun. You never construct one:
// PhysicalRun lends you the builder of this thread (on the stack; a graph
// capture in progress on this thread lends its recorder instead). Use it only
// inside the `build` callback, on the thread that called PhysicalRun.
// Every method checks its arguments at once and queues nothing on error;
// tensors and callbacks are copied in, so arguments need only live for the call.
class EAGERVM_EXPORT InstructionsBuilder {
 public:
  InstructionsBuilder(const InstructionsBuilder&) = delete;
  InstructionsBuilder& operator=(const InstructionsBuilder&) = delete;

  // One OpCall instruction of `op` on `stream`: reads `inputs` (and writes
  // those the op declares in OpOptions::mutated_inputs), writes `outputs`,
  // which the caller created with the right metas (e.g. from the op's
  // InferFn). InvalidArgument/FailedPrecondition, naming the op and the
  // argument, if a tensor is undefined, an error tensor, or not on `stream`'s
  // device, if a declared mutated input is missing, or if the op has no
  // kernel for the device and the first tensor's dtype (Unimplemented when
  // another device type has one: this backend lacks the op). A strided view read
  // as an input is passed as a compact copy (queued first); one written (an
  // output, a mutated input) is InvalidArgument.
  [[nodiscard]] absl::Status Call(const OpHandle& op, absl::Span<const Tensor> inputs,
                                  absl::Span<const Tensor> outputs, const Attrs& attrs,
                                  Stream stream);
  // Frees `t`'s storage after every earlier use of it (normally emitted for
  // you when the last handle drops); later uses of `t` fail at run time.
  [[nodiscard]] absl::Status ReleaseTensor(const Tensor& t);
  // Runs `cb(data, bytes)` on a CPU stream's thread (never the scheduler,
  // unless VmOptions::compute_on_scheduler_thread puts the CPU streams there)
  // once every earlier write (kRead) or every earlier access (kWrite) of `t`
  // is done; `data` is host memory holding `t`'s bytes (a kWrite of a tensor
  // nothing wrote yet: uninitialised), valid only during the call. A tensor
  // on a device is copied to host memory first and, for kWrite, back after
  // `cb` returns; its later users wait for that copy. The callback should be
  // short: it holds up its CPU stream (never a device's streams); it must not
  // call eagervm's blocking calls. An exception it throws is caught and
  // reported by the next Sync(). If `t` carries a runtime error the callback
  // is skipped and the error surfaces at the next Sync(). A strided view
  // (!t.is_contiguous()) is InvalidArgument: access its Contiguous() copy.
  [[nodiscard]] absl::Status AccessBlobByCallback(const Tensor& t,
                                                  std::function<void(void* data, size_t bytes)> cb,
                                                  AccessMode mode);
  // A barrier that runs `cb` on the scheduler thread once every instruction
  // received before it has been released; later instructions do not wait for
  // it. `cb` must not block (it holds up the scheduler); an exception it
  // throws is caught and reported by the next Sync().
  [[nodiscard]] absl::Status Barrier(std::function<void()> cb);
  // A barrier after all earlier instructions, with no callback.
  [[nodiscard]] absl::Status GlobalSync();

 private:
  friend class Builder;  // the runtime's builders (eager, recording) derive from Builder only
  InstructionsBuilder() = default;
  ~InstructionsBuilder() = default;
};

// Lends `build` this thread's builder and hands what it built to the VM as
// one batch (one lock, at most one scheduler wake-up). If `build` returns an
// error, nothing it built is queued and that error is returned. Any thread
// except VM threads' blocking contexts; never blocks except for back-pressure
// (VmOptions::max_in_flight). FailedPrecondition after Shutdown(). `build`
// runs once, on this thread, before PhysicalRun returns. A FunctionRef, not
// a template, keeps the builder's internals out of this header.
[[nodiscard]] EAGERVM_EXPORT absl::Status PhysicalRun(
    absl::FunctionRef<absl::Status(InstructionsBuilder*)> build);

}  // namespace vm
}  // namespace eagervm

#endif  // EAGERVM_INSTRUCTIONS_BUILDER_H_
