// Autograd: reverse-mode gradients of ordinary op calls (docs/autograd.md).
//
// Mark parameters with Tensor::RequiresGrad(); every op that reads a tensor
// requiring grad is then recorded on the calling thread as it is submitted
// (a tape of nodes that hang off the tensors it made; recording never
// blocks). Backward(loss) submits the backward ops as ordinary VM
// instructions, asynchronous and ordered like any op, and accumulates into
// the leaves' grad(). A forward in which no input requires grad records
// nothing.
//
// Threads: any user thread may record and run Backward; one graph (the
// nodes behind one loss) must not be differentiated from two threads at
// once. Errors follow eagervm.h: calls return absl::Status / StatusOr and
// queue nothing when they refuse.
#ifndef EAGERVM_AUTOGRAD_H_
#define EAGERVM_AUTOGRAD_H_

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/export.h"
#include "eagervm/kernel.h"
#include "eagervm/scalar.h"
#include "eagervm/tensor.h"

namespace eagervm {
namespace internal {
struct GradNode;
}

namespace autograd {

// Any user thread; never blocks (except for back-pressure). Runs Backward from `loss` (one element)
// and adds the gradient of each leaf that requires grad to its grad() (a new tensor the first time,
// then accumulated in place). The backward ops are queued, not run: read grad() like any tensor.
// Frees the saved tensors of the graph as their backward ops are queued, so a second Backward
// through the same graph is FailedPrecondition, unless `retain_graph`. Errors (nothing queued):
// loss undefined, an error tensor, not one element, or not requiring grad; a node whose op has no
// backward formula (InvalidArgument naming the op); a saved tensor changed in place after the
// forward read it; a custom backward returning a gradient of the wrong shape or dtype
// (InvalidArgument naming the op, some ops then queued).
[[nodiscard]] EAGERVM_EXPORT absl::Status Backward(const Tensor& loss, bool retain_graph = false);

// Any user thread; never blocks (except for back-pressure). `inputs` is read
// during the call only. The functional form: the gradients of `loss` with respect to `inputs`
// (leaves or intermediate tensors), in order; leaves' grad() are left as
// they are. An input the loss does not depend on is InvalidArgument.
// Frees the graph as Backward does unless `retain_graph`.
EAGERVM_EXPORT absl::StatusOr<std::vector<Tensor>> Grad(const Tensor& loss,
                                                        absl::Span<const Tensor> inputs,
                                                        bool retain_graph = false);

// RAII, thread-local: ops called on this thread while one is alive record
// nothing, and in-place ops may write tensors that require grad (what
// optimizers do). Nests.
class EAGERVM_EXPORT NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;
};
// Any thread; never blocks. False inside a NoGradGuard on this thread (and
// while Backward runs).
EAGERVM_EXPORT bool IsGradEnabled();

// Any user thread; never blocks (except for back-pressure); `params` is read
// during the call only. Sets every defined grad() of `params` to zero in
// place (queued; a grad that is undefined stays so).
[[nodiscard]] EAGERVM_EXPORT absl::Status ZeroGrad(absl::Span<const Tensor> params);

// What a backward formula sees of the op call it differentiates. Valid only
// during the call of the formula.
class EAGERVM_EXPORT BackwardContext {
 public:
  std::string_view op() const;
  int num_inputs() const;
  int num_outputs() const;
  // The op's inputs and outputs as the forward saw them (their values, no
  // gradient history). Custom ops save all of them.
  const Tensor& input(int i) const;
  const Tensor& output(int i) const;
  const TensorMeta& input_meta(int i) const;
  absl::Span<const Scalar> scalars() const;
  const Attrs& attrs() const;  // empty for built-ins
  // False for an input that needs no gradient (its result is ignored).
  bool needs_input_grad(int i) const;

 private:
  friend struct internal::GradNode;
  explicit BackwardContext(const internal::GradNode* node) : node_(node) {}
  const internal::GradNode* node_;
};

// A backward formula: given the gradient of each output (never undefined:
// zeros where the loss does not depend on it), returns one gradient per
// input, of its shape and dtype (an undefined tensor: none). Called on the
// thread that runs Backward, inside a NoGradGuard; it should only queue ops.
using BackwardFn = std::function<absl::StatusOr<std::vector<Tensor>>(
    const BackwardContext& ctx, absl::Span<const Tensor> grad_outputs)>;

// Any thread; never blocks (takes the registry's lock briefly); `fn` is
// copied. Registers the backward of the custom op `op` (RegisterOp). A
// call of a custom op without one records a node all the same, and
// Backward through it is InvalidArgument naming the op. NotFound for an
// unknown op, AlreadyExists for a second registration or a built-in.
[[nodiscard]] EAGERVM_EXPORT absl::Status RegisterBackward(std::string_view op, BackwardFn fn);

}  // namespace autograd
}  // namespace eagervm

#endif  // EAGERVM_AUTOGRAD_H_
