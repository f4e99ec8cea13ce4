// Backward and Grad: walk the tape from the loss in reverse creation order,
// calling each node's formula (which queues ordinary ops) and routing the
// gradients it returns along the node's edges. Everything that can refuse
// (freed nodes, missing formulas, overwritten saved tensors) is checked
// before the first backward op is queued.
#include <algorithm>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "autograd/capture_refusal.h"
#include "autograd/grad_node.h"
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "vm/intake.h"

namespace eagervm::internal {

absl::Status MaterializeZeroedGrad(AutogradMeta& m) {
  if (!m.grad_zeroed) return absl::OkStatus();
  m.grad_zeroed = false;
  autograd::NoGradGuard no_grad;
  vm::ScopedRecorder eager(nullptr);  // the deferral predates any capture now running
  return ops::FillInplace(m.grad, 0.0);
}

namespace {

// A gradient being summed: `owned` when it is the result of an Add here, so
// no one else holds it and a leaf may keep it as its grad().
struct Pending {
  Tensor sum;
  bool owned = false;
};

absl::Status Accumulate(Pending* p, const Tensor& g) {
  if (!p->sum.defined()) {
    p->sum = g;
    p->owned = false;
    return absl::OkStatus();
  }
  p->sum = ops::Add(p->sum, g);
  p->owned = true;
  return p->sum.status();
}

// Whether gradient `g` fits where it goes (`meta`), as `what` of `op`.
// `api`: the function the user called (Backward or Grad), which messages name.
absl::Status CheckGradient(const Tensor& g, const TensorMeta& meta, std::string_view op, int i,
                           const char* api) {
  if (!g.ok()) {
    return absl::Status(g.status().code(),
                        base::Cat(api, ": the backward of ", op, " failed for input ", i, ": ",
                                  g.status().message()));
  }
  if (g.shape() != meta.shape || g.dtype() != meta.dtype || g.device() != meta.device) {
    return absl::InvalidArgumentError(
        base::Cat(api, ": the backward of ", op, " returned a gradient ", ToString(g.dtype()), " ",
                  g.shape(), " on ", g.device().ToString(), " for input ", i, ", which is ",
                  ToString(meta.dtype), " ", meta.shape, " on ", meta.device.ToString()));
  }
  return absl::OkStatus();
}

struct Target {
  GradNode* node = nullptr;  // a non-leaf input: this node's output ...
  int output_nr = 0;         // ... this one
  AutogradMeta* leaf = nullptr;
};

class Walk {
 public:
  Walk(bool retain, bool accumulate_leaves)
      : retain_(retain),
        accumulate_leaves_(accumulate_leaves),
        api_(accumulate_leaves ? "Backward" : "Grad") {}

  // Validates everything reachable from `root` before anything is queued.
  absl::Status Prepare(const std::shared_ptr<GradNode>& root) {
    std::vector<GradNode*> stack{root.get()};
    deps_[root.get()] = 0;
    while (!stack.empty()) {
      GradNode* n = stack.back();
      stack.pop_back();
      if (n->released) {
        return absl::FailedPreconditionError(base::Cat(
            api_, ": the graph through ", n->op,
            " was already freed by an earlier Backward or Grad; pass retain_graph = true to the "
            "first one to differentiate it twice"));
      }
      if (n->formula == nullptr) {
        return absl::InvalidArgumentError(
            base::Cat(api_, ": ", n->op,
                      " has no backward formula (a custom op without RegisterBackward, or a "
                      "built-in op that is not differentiable); the loss depends on its output "
                      "through an input that requires grad"));
      }
      if (absl::Status s = n->CheckVersions(); !s.ok()) return s;
      for (const GradEdge& e : n->next) {
        if (e.leaf != nullptr) {
          if (absl::Status s = CheckLeafForCapture(*e.leaf); !s.ok()) return s;
        }
        if (e.node == nullptr) continue;
        auto [it, inserted] = deps_.try_emplace(e.node.get(), 0);
        ++it->second;
        if (inserted) stack.push_back(e.node.get());
      }
    }
    return absl::OkStatus();
  }

  // Inside Graph::Capture a leaf's grad() must exist already: a gradient
  // made inside the capture could not outlive it.
  absl::Status CheckLeafForCapture(AutogradMeta& leaf) {
    if (!accumulate_leaves_ || vm::CurrentRecorder() == nullptr) return absl::OkStatus();
    std::lock_guard<std::mutex> lock(leaf.mu);
    if (leaf.grad.defined()) return absl::OkStatus();
    return absl::FailedPreconditionError(base::Cat(
        "Backward inside Graph::Capture: the leaf ", leaf.meta.shape,
        " has no grad() yet, and one made inside the capture could not outlive it. Run one "
        "training step eagerly before capturing (Backward then allocates every grad)"));
  }

  absl::Status Run(const std::shared_ptr<GradNode>& root, int root_output, const Tensor& seed,
                   std::vector<Target>* targets, std::vector<Tensor>* target_grads) {
    targets_ = targets;
    target_grads_ = target_grads;
    auto later_first = [](GradNode* a, GradNode* b) { return a->sequence < b->sequence; };
    std::priority_queue<GradNode*, std::vector<GradNode*>, decltype(later_first)> ready(
        later_first);
    if (root != nullptr) {
      grads_[root.get()].resize(root->output_metas.size());
      grads_[root.get()][root_output] = Pending{seed, false};
      ready.push(root.get());
    }
    while (!ready.empty()) {
      GradNode* n = ready.top();
      ready.pop();
      std::vector<Pending>& in = grads_[n];
      in.resize(n->output_metas.size());
      CaptureTargets(n, in);
      if (absl::Status s = RunNode(n, in); !s.ok()) return s;
      grads_.erase(n);
      for (const GradEdge& e : n->next) {
        if (e.node != nullptr && --deps_[e.node.get()] == 0) ready.push(e.node.get());
      }
      if (!retain_) n->Release();
    }
    return FinishLeaves();
  }

  // Routes a gradient of a leaf input; non-leaf targets are caught in Run.
  absl::Status SendToLeaf(const std::shared_ptr<AutogradMeta>& leaf, const Tensor& g) {
    Pending& p = leaf_grads_[leaf.get()];
    if (!p.sum.defined()) leaf_order_.push_back(leaf);
    return Accumulate(&p, g);
  }

 private:
  void CaptureTargets(GradNode* n, const std::vector<Pending>& in) {
    if (targets_ == nullptr) return;
    for (size_t t = 0; t < targets_->size(); ++t) {
      const Target& target = (*targets_)[t];
      if (target.node == n && in[target.output_nr].sum.defined())
        (*target_grads_)[t] = in[target.output_nr].sum;
    }
  }

  absl::Status RunNode(GradNode* n, const std::vector<Pending>& in) {
    bool any = false;
    for (const Pending& p : in) any = any || p.sum.defined();
    if (!any) return absl::OkStatus();  // the loss does not depend on this node's outputs
    std::vector<Tensor> grad_outputs;
    grad_outputs.reserve(in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      const TensorMeta& m = n->output_metas[k];
      grad_outputs.push_back(in[k].sum.defined() ? in[k].sum : Zeros(m.shape, m.dtype, m.device));
    }
    absl::StatusOr<std::vector<Tensor>> result = n->formula->fn(n->Context(), grad_outputs);
    if (!result.ok()) {
      return absl::Status(result.status().code(), base::Cat(api_, ": the backward of ", n->op, ": ",
                                                            result.status().message()));
    }
    if (result->size() != n->next.size()) {
      return absl::InvalidArgumentError(base::Cat(api_, ": the backward of ", n->op, " returned ",
                                                  result->size(), " gradient(s) for ",
                                                  n->next.size(),
                                                  " input(s); it must return one per input "
                                                  "(an undefined tensor for none)"));
    }
    for (size_t i = 0; i < n->next.size(); ++i) {
      const GradEdge& e = n->next[i];
      const Tensor& g = (*result)[i];
      if (!e.defined() || !g.defined()) continue;
      if (absl::Status s = CheckGradient(g, n->input_metas[i], n->op, static_cast<int>(i), api_);
          !s.ok())
        return s;
      if (e.node != nullptr) {
        std::vector<Pending>& dst = grads_[e.node.get()];
        dst.resize(e.node->output_metas.size());
        if (absl::Status s = Accumulate(&dst[e.output_nr], g); !s.ok()) return s;
      } else if (absl::Status s = SendToLeaf(e.leaf, g); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  absl::Status FinishLeaves() {
    for (const std::shared_ptr<AutogradMeta>& leaf : leaf_order_) {
      Pending& p = leaf_grads_[leaf.get()];
      if (targets_ != nullptr) {
        for (size_t t = 0; t < targets_->size(); ++t)
          if ((*targets_)[t].leaf == leaf.get()) (*target_grads_)[t] = p.sum;
      }
      if (!accumulate_leaves_) continue;
      std::lock_guard<std::mutex> lock(leaf->mu);
      const bool capturing = vm::CurrentRecorder() != nullptr;
      if (leaf->grad.defined() && leaf->grad_zeroed && !capturing) {
        // After a deferred ZeroGrad no one else holds grad(): the gradient
        // replaces it (no fill, no add), kept as is when no one else holds
        // it either, else copied into grad()'s buffer.
        leaf->grad_zeroed = false;
        if (SoleHandle(p.sum)) {
          leaf->grad = p.sum;
        } else if (absl::Status s = ops::CopyInto(leaf->grad, p.sum); !s.ok()) {
          return s;
        }
      } else if (leaf->grad.defined()) {
        // Inside a capture the plan must add into grad()'s buffer: a
        // deferred zero fill is queued now, eagerly, before it.
        if (absl::Status s = MaterializeZeroedGrad(*leaf); !s.ok()) return s;
        if (absl::Status s = ops::AddInplace(leaf->grad, p.sum); !s.ok()) return s;
      } else {
        // A gradient someone else may hold (a formula passed it through)
        // is copied, so accumulating into grad() later changes nothing else.
        leaf->grad = p.owned || SoleHandle(p.sum) ? p.sum : p.sum.To(p.sum.device());
        if (!leaf->grad.ok()) return leaf->grad.status();
      }
    }
    return absl::OkStatus();
  }

  bool retain_;
  bool accumulate_leaves_;
  const char* api_;  // "Backward" or "Grad": what the messages name
  absl::flat_hash_map<GradNode*, int> deps_;
  absl::flat_hash_map<GradNode*, std::vector<Pending>> grads_;
  absl::flat_hash_map<AutogradMeta*, Pending> leaf_grads_;
  std::vector<std::shared_ptr<AutogradMeta>> leaf_order_;
  std::vector<Target>* targets_ = nullptr;
  std::vector<Tensor>* target_grads_ = nullptr;
};

absl::Status CheckLoss(const Tensor& loss, const char* fn) {
  // As an op given an undefined tensor (docs/ops.md, "Errors").
  if (!loss.defined()) {
    return absl::FailedPreconditionError(
        base::Cat(fn, ": the loss is an undefined tensor (default-constructed or moved-from)"));
  }
  if (!loss.ok()) return loss.status();
  if (loss.numel() != 1) {
    return absl::InvalidArgumentError(base::Cat(fn, ": the loss must have one element; it is ",
                                                loss.shape(), " (reduce it first, e.g. Mean)"));
  }
  if (!RequiresGradOf(loss)) {
    return absl::InvalidArgumentError(base::Cat(
        fn,
        ": the loss does not require grad: none of the tensors it was computed from was "
        "marked RequiresGrad(), or it was computed inside NoGradGuard (or from grad(), which "
        "has no history: gradients of gradients are not supported)"));
  }
  return absl::OkStatus();
}

// Runs the walk from `loss`; `targets` null: Backward.
absl::Status Differentiate(const Tensor& loss, bool retain, std::vector<Target>* targets,
                           std::vector<Tensor>* target_grads) {
  autograd::NoGradGuard no_grad;  // backward ops are not recorded
  AutogradMeta* m = AutogradOf(loss);
  Walk walk(retain, targets == nullptr);
  const Tensor seed = Full(loss.shape(), 1.0, loss.dtype(), loss.device());
  if (!seed.ok()) return seed.status();
  if (m->grad_fn == nullptr) {  // the loss is itself a leaf
    if (absl::Status s = walk.CheckLeafForCapture(*m); !s.ok()) return s;
    if (absl::Status s = walk.SendToLeaf(ImplOf(loss)->autograd.shared(), seed); !s.ok()) return s;
    return walk.Run(nullptr, 0, seed, targets, target_grads);
  }
  if (absl::Status s = walk.Prepare(m->grad_fn); !s.ok()) return s;
  return walk.Run(m->grad_fn, m->output_nr, seed, targets, target_grads);
}

}  // namespace
}  // namespace eagervm::internal

namespace eagervm::autograd {

absl::Status Backward(const Tensor& loss, bool retain_graph) {
  if (absl::Status s = internal::CheckLoss(loss, "Backward"); !s.ok())
    return internal::NotedInCapture(s);
  return internal::NotedInCapture(internal::Differentiate(loss, retain_graph, nullptr, nullptr));
}

namespace {
absl::StatusOr<std::vector<Tensor>> GradImpl(const Tensor& loss, absl::Span<const Tensor> inputs,
                                             bool retain_graph) {
  if (absl::Status s = internal::CheckLoss(loss, "Grad"); !s.ok()) return s;
  std::vector<internal::Target> targets(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    internal::AutogradMeta* m = internal::AutogradOf(inputs[i]);
    if (!inputs[i].ok() || !internal::RequiresGradOf(inputs[i])) {
      return absl::InvalidArgumentError(base::Cat(
          "Grad: input ", i, " does not require grad, so the loss has no gradient for it"));
    }
    if (m->grad_fn != nullptr) {
      targets[i].node = m->grad_fn.get();
      targets[i].output_nr = m->output_nr;
    } else {
      targets[i].leaf = m;
    }
  }
  std::vector<Tensor> grads(inputs.size());
  if (absl::Status s = internal::Differentiate(loss, retain_graph, &targets, &grads); !s.ok())
    return s;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) {
      return absl::InvalidArgumentError(
          base::Cat("Grad: the loss does not depend on input ", i, " (", inputs[i].shape(), ")"));
    }
  }
  return grads;
}

absl::Status ZeroGradImpl(absl::Span<const Tensor> params) {
  NoGradGuard no_grad;
  for (const Tensor& p : params) {
    if (p.defined() && !p.ok()) return p.status();
    internal::AutogradMeta* m = internal::AutogradOf(p);
    if (m == nullptr) continue;
    std::lock_guard<std::mutex> lock(m->mu);
    if (!m->grad.defined() || m->grad_zeroed) continue;
    // A grad no one else holds (no handle from grad(), no view of it) is
    // zeroed lazily: the next Backward stores its gradient instead of
    // adding it to zeros, and grad() fills it first. Inside a capture the
    // fill is recorded, as every op there.
    if (vm::CurrentRecorder() == nullptr && internal::SoleHandle(m->grad)) {
      m->grad_zeroed = true;
      continue;
    }
    if (absl::Status s = ops::FillInplace(m->grad, 0.0); !s.ok()) return s;
  }
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<std::vector<Tensor>> Grad(const Tensor& loss, absl::Span<const Tensor> inputs,
                                         bool retain_graph) {
  absl::StatusOr<std::vector<Tensor>> grads = GradImpl(loss, inputs, retain_graph);
  if (!grads.ok()) (void)internal::NotedInCapture(grads.status());
  return grads;
}

absl::Status ZeroGrad(absl::Span<const Tensor> params) {
  return internal::NotedInCapture(ZeroGradImpl(params));
}

}  // namespace eagervm::autograd
