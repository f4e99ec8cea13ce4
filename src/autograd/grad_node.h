// The tape: one GradNode per recorded op call, hanging off the tensors the
// call made (AutogradMeta::grad_fn); edges point back to the nodes (or
// leaves) that made its inputs. Saved tensors are value-only aliases (no
// autograd record), so the graph has no cycles and is freed with its last
// tensor.
#ifndef EAGERVM_AUTOGRAD_GRAD_NODE_H_
#define EAGERVM_AUTOGRAD_GRAD_NODE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "eagervm/autograd.h"
#include "eagervm/tensor.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

struct GradNode;

// Per tensor, once autograd is in use for it (TensorImpl::autograd).
struct AutogradMeta {
  // A leaf marked RequiresGrad(). A non-leaf has grad_fn instead.
  bool requires_grad = false;
  std::shared_ptr<GradNode> grad_fn;  // the node whose output this is; null: a leaf
  int output_nr = 0;
  TensorMeta meta;  // the leaf's, for checking its gradient
  std::mutex mu;    // guards grad and grad_zeroed
  Tensor grad;
  // ZeroGrad deferred (only while `grad` is reachable through this field
  // alone, SoleHandle): grad reads as zeros although its buffer was not
  // filled. Backward then stores its gradient instead of adding it; grad()
  // first queues the fill (MaterializeZeroedGrad).
  bool grad_zeroed = false;
};

// Whether `t` is reachable through this one handle alone: no other Tensor
// shares its TensorImpl, and no view or value-only alias shares its storage
// (queued instructions hold the blob, not these), and it is compact from the
// start of its storage. Then replacing or refilling it is visible to no one.
inline bool SoleHandle(const Tensor& t) {
  const std::shared_ptr<TensorImpl>& impl = ImplOf(t);
  return impl.use_count() == 1 && impl->storage.use_count() == 1 && impl->strides.empty() &&
         impl->offset == 0;
}

// Ends a deferred ZeroGrad of `m` (m.mu held): queues the zero fill of its
// grad, outside any graph capture (the deferral was made eagerly, before it).
absl::Status MaterializeZeroedGrad(AutogradMeta& m);

inline AutogradMeta* AutogradOf(const Tensor& t) {
  return t.defined() ? ImplOf(t)->autograd.get() : nullptr;
}
inline bool RequiresGradOf(const Tensor& t) {
  const AutogradMeta* m = AutogradOf(t);
  return m != nullptr && (m->requires_grad || m->grad_fn != nullptr);
}

// Where a gradient goes: another node's output, or a leaf's grad().
struct GradEdge {
  std::shared_ptr<GradNode> node;
  int output_nr = 0;
  std::shared_ptr<AutogradMeta> leaf;
  bool defined() const { return node != nullptr || leaf != nullptr; }
};

// A tensor a formula reads, and its storage's version when it was saved.
struct SavedTensor {
  Tensor value;  // value-only alias; undefined: not saved
  uint32_t version = 0;
};

// What a formula is, and which operands it needs kept (bit i: input/output i).
struct GradFormula {
  autograd::BackwardFn fn;
  uint64_t saved_inputs = ~uint64_t{0};
  uint64_t saved_outputs = ~uint64_t{0};
};

struct GradNode {
  // The op's name: an OpDef's (never destroyed) or a string literal.
  std::string_view op;
  const GradFormula* formula = nullptr;  // null: the op has no backward
  uint64_t sequence = 0;                 // creation order (later runs first)
  // Inline for the usual arity (one allocation per node).
  absl::InlinedVector<GradEdge, 2> next;  // per input
  absl::InlinedVector<TensorMeta, 2> input_metas;
  absl::InlinedVector<TensorMeta, 1> output_metas;
  absl::InlinedVector<SavedTensor, 2> inputs;
  absl::InlinedVector<SavedTensor, 1> outputs;
  absl::InlinedVector<Scalar, 1> scalars;
  std::shared_ptr<const Attrs> attrs;
  // A view's node: the view's geometry relative to its base (meta, offset
  // from the base's, strides), no storage.
  std::shared_ptr<const TensorImpl> view_geometry;
  std::shared_ptr<const TensorImpl> base_geometry;  // the base's (offset 0)
  bool released = false;                            // saved tensors dropped by a Backward

  static const GradNode& Of(const autograd::BackwardContext& c) { return *c.node_; }

  GradNode() = default;
  GradNode(const GradNode&) = delete;
  GradNode& operator=(const GradNode&) = delete;
  // Frees the nodes only this one kept alive iteratively, not recursively:
  // a tape of a million chained ops must not overflow the stack.
  ~GradNode();

  autograd::BackwardContext Context() const { return autograd::BackwardContext(this); }
  // The saved tensors' versions are the storages' current ones.
  absl::Status CheckVersions() const;
  void Release();
};

// A value-only alias of `t` (shares storage, no autograd record).
Tensor ValueOnly(const Tensor& t);
SavedTensor Save(const Tensor& t);

// The formula of built-in or custom op `op`, or null.
const GradFormula* FindGradFormula(std::string_view op);
// Registers the formulas of the built-in ops (once).
void RegisterBuiltinGradFormulas();

// Sets the process's recorder hooks (ops and views) on first use.
void InstallGradRecorder();

// Thread-local grad mode (NoGradGuard).
bool GradModeEnabled();

}  // namespace eagervm::internal

#endif  // EAGERVM_AUTOGRAD_GRAD_NODE_H_
