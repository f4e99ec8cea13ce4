// Custom ops: how an embedding application adds its own ops and kernels
// (registration, ops::Call). What a kernel sees when it runs (KernelContext,
// Attrs, KernelFn) is the kernel ABI, in eagervm/kernel.h.
#ifndef EAGERVM_CUSTOM_OP_H_
#define EAGERVM_CUSTOM_OP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/export.h"
#include "eagervm/kernel.h"
#include "eagervm/scalar.h"
#include "eagervm/tensor.h"
#include "eagervm/tensor_list.h"

namespace eagervm {

struct OpOptions {
  // Inputs the kernel writes in place, each in [0, 64). A list here; the
  // runtime keeps it as one bit mask (KernelContext::mutable_input checks it).
  std::vector<int> mutated_inputs;
  // Mutated inputs the kernel overwrites entirely without reading their old
  // value (a fill, a copy into): each must also be in mutated_inputs. Such an
  // input need not have been written before (an Empty tensor), and a write
  // of all of its storage heals an error it carried, as an output's does.
  std::vector<int> overwritten_inputs;
  // The kernel is short for small operands and never blocks (no locks, I/O,
  // sleeps or waits on other threads): the scheduler may then run a call
  // whose operands total at most VmOptions::inline_max_bytes itself, instead
  // of handing it to the stream's worker thread (a handoff costs more than a
  // tiny kernel). Off by default: a user kernel may block. Built-ins set it.
  // Such a call may also run on a user thread blocked in a host read
  // (Tensor::Wait, Item, ToVector, CopyToHost) or Sync() while the VM is
  // nearly idle: any user thread, not only the one that submitted the call;
  // and on the submitting thread itself, before ops::Call returns, when
  // nothing is in flight (VmOptions::donate_max_bytes).
  // See RegisterKernel.
  bool small_runs_inline = false;
  // Each thread remembers the op's inference: a call whose input metas and
  // attrs equal an earlier call's on the same thread gets that call's output
  // metas without running InferFn (OneFlow's "don't re-infer identical op
  // nodes"). So InferFn must be a pure function of its arguments,
  // as the contract below says. Set false for an InferFn that reads state of
  // its own (a global switch, a counter): it then runs on every call.
  bool cache_inference = true;
  // The kernel's only effect is writing its outputs and mutated inputs, as a
  // function of its inputs and attrs (no logging, counters, files, clocks,
  // sensors or random state of its own). Graph mode may then drop a call
  // whose results are unused (and with it an error it would have raised)
  // and run a call with no graph inputs once, as a constant. Off by default:
  // an impure op runs on every Run, in capture order (docs/graph.md).
  // Built-ins are pure.
  bool pure = false;
};

using InferFn = std::function<absl::StatusOr<std::vector<TensorMeta>>(
    const std::vector<TensorMeta>&, const Attrs&)>;

// Registers an op. Any thread, including while other threads run ops; does
// not wait for the VM (it takes the registry's lock briefly). AlreadyExists if
// the name is taken; InvalidArgument for an empty name or `infer`, or a
// mutated input index outside [0, 64). `infer` is kept for the rest of the
// process and runs on the threads that call ops::Call(name, ...), possibly on
// several at once: it must be thread-safe, it should not block, and its result
// must depend on its arguments only. A thread runs it once per distinct
// (input metas, attrs) it calls the op with, while that result stays in the
// thread's cache of recent inferences (OpOptions::cache_inference).
[[nodiscard]] EAGERVM_EXPORT absl::Status RegisterOp(std::string name, InferFn infer,
                                                     OpOptions options = {});
// Registers the kernel of `op` for a device type (it serves every dtype; check
// them in the kernel). NotFound if the op is unknown, AlreadyExists if it has
// a kernel for `device` already (a kernel is never replaced), InvalidArgument
// if `kernel` is empty.
//
// Any thread, at any time, also while other threads call `op`: the kernel is
// published atomically, so a call that starts after RegisterKernel returned
// finds it, and a call racing with it either finds it or is rejected with
// InvalidArgument ("no cpu kernel"; Unimplemented if another device type
// has a kernel), never sees a partly stored one. Does not
// wait for the VM (it takes the registry's lock briefly; looking up the kernel
// of an op call takes no lock).
//
// `kernel` (and what it captures) is kept for the rest of the process, and
// calls on different streams run concurrently: it must be thread-safe. A call
// runs on one of these threads:
// - the worker thread of its CPU stream;
// - the scheduler thread: a call of an op with OpOptions::small_runs_inline
//   whose operands total at most VmOptions::inline_max_bytes, when nothing
//   earlier on its stream is still running; every CPU call with
//   VmOptions::compute_on_scheduler_thread; every CUDA call (it launches on
//   KernelContext::cuda_stream());
// - a user thread blocked in a host read (Tensor::Wait, Item, ToVector,
//   CopyToHost, Wait(span), printing a tensor) or in Sync(), in the
//   scheduler's stead: while the VM is nearly idle (a read of a CPU tensor
//   with at most 8 submitted instructions not yet taken in; a read or Sync
//   that finds nothing in flight) that thread runs the scheduler's passes
//   itself rather than wake it, and runs whatever the scheduler would have
//   run in them, calls that *other* threads submitted included;
// - with VmOptions::synchronous, the thread that submitted the call.
// On each of them the call runs as on a VM thread: blocking eagervm
// functions (Sync, Wait, Item, ...) fail with FailedPrecondition there. So a
// kernel must not depend on which thread runs it (thread_locals, per-thread
// handles; key such state by stream), and a kernel that may run in the
// scheduler's stead must not take a lock that user code may hold while it
// reads a tensor or calls Sync(). An op with small_runs_inline off (the
// default), on a CPU stream, without compute_on_scheduler_thread, runs its
// kernel on its stream's worker only (or, in synchronous mode, on the
// submitting thread).
[[nodiscard]] EAGERVM_EXPORT absl::Status RegisterKernel(std::string op, DeviceType device,
                                                         KernelFn kernel);

namespace internal {
struct OpDef;
struct OpHandleAccess;
}  // namespace internal

// A resolved op, for the low-level builder (vm::InstructionsBuilder::Call).
// Cheap to copy; valid forever (ops are never unregistered). Any thread.
class EAGERVM_EXPORT OpHandle {
 public:
  // NotFound for an unknown name. Takes the registry lock: look ops up once.
  static absl::StatusOr<OpHandle> Find(std::string_view name);
  std::string_view name() const;

 private:
  friend struct internal::OpHandleAccess;
  explicit OpHandle(const internal::OpDef* def) : def_(def) {}
  const internal::OpDef* def_;
};

namespace ops {
// Runs a registered op on the current stream of its inputs' device: infers the
// outputs on this thread (errors are returned here, nothing queued), then queues.
// Any thread, VM threads included (a kernel may queue ops); does not block
// (except for back-pressure on a user thread). `inputs` and
// `attrs` need only live for the call: a braced list (`ops::Call("Scale",
// {x})`) or a std::vector both bind, and neither is copied.
//
// A repeated call costs what a built-in op costs: the inference is looked up
// in the thread's cache (OpOptions::cache_inference), the attrs are compared
// with the cached call's and not copied, and the outputs come back in a
// TensorList (inline room for four), so nothing is allocated but the output
// tensors themselves.
// TensorList converts to std::vector<Tensor>, so
// `absl::StatusOr<std::vector<Tensor>> y = ops::Call(...)` compiles too.
EAGERVM_EXPORT absl::StatusOr<TensorList> Call(std::string_view op, absl::Span<const Tensor> inputs,
                                               const Attrs& attrs = {});
}  // namespace ops

}  // namespace eagervm

#endif  // EAGERVM_CUSTOM_OP_H_
