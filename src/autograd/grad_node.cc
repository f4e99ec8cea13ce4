// GradNode, saved tensors, grad mode, and the Tensor members of autograd.
#include "autograd/grad_node.h"

#include "base/str_cat.h"

namespace eagervm::internal {
namespace {
thread_local int t_no_grad_depth = 0;
}  // namespace

bool GradModeEnabled() { return t_no_grad_depth == 0; }

Tensor ValueOnly(const Tensor& t) {
  if (!t.defined()) return t;
  return WrapImpl(std::make_shared<TensorImpl>(*ImplOf(t)));  // the copy has no autograd slot
}

SavedTensor Save(const Tensor& t) {
  return SavedTensor{ValueOnly(t), ImplOf(t)->storage->version()};
}

absl::Status GradNode::CheckVersions() const {
  auto check = [&](absl::Span<const SavedTensor> saved, const char* what) -> absl::Status {
    for (size_t i = 0; i < saved.size(); ++i) {
      const Tensor& v = saved[i].value;
      if (!v.defined()) continue;
      const uint32_t now = ImplOf(v)->storage->version();
      if (now != saved[i].version) {
        return absl::FailedPreconditionError(base::Cat(
            "Backward: ", what, " ", i, " of ", op, " (", v.shape(), " ", ToString(v.dtype()),
            ") was written in place after ", op,
            " read it; its backward needs the old values. Write a copy instead, or do the "
            "in-place write after Backward"));
      }
    }
    return absl::OkStatus();
  };
  absl::Status s = check(inputs, "input");
  if (s.ok()) s = check(outputs, "output");
  return s;
}

GradNode::~GradNode() {
  thread_local std::vector<std::shared_ptr<GradNode>> pending;
  thread_local bool draining = false;
  for (GradEdge& e : next) {
    if (e.node != nullptr) pending.push_back(std::move(e.node));
  }
  if (draining) return;  // an outer destructor below drains them
  draining = true;
  while (!pending.empty()) {
    std::shared_ptr<GradNode> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // may push that node's edges
  }
  draining = false;
}

void GradNode::Release() {
  inputs.clear();
  outputs.clear();
  released = true;
}

}  // namespace eagervm::internal

namespace eagervm {
namespace autograd {

NoGradGuard::NoGradGuard() { ++internal::t_no_grad_depth; }
NoGradGuard::~NoGradGuard() { --internal::t_no_grad_depth; }
bool IsGradEnabled() { return internal::GradModeEnabled(); }

std::string_view BackwardContext::op() const { return node_->op; }
int BackwardContext::num_inputs() const { return static_cast<int>(node_->input_metas.size()); }
int BackwardContext::num_outputs() const { return static_cast<int>(node_->output_metas.size()); }
const Tensor& BackwardContext::input(int i) const { return node_->inputs[i].value; }
const Tensor& BackwardContext::output(int i) const { return node_->outputs[i].value; }
const TensorMeta& BackwardContext::input_meta(int i) const { return node_->input_metas[i]; }
absl::Span<const Scalar> BackwardContext::scalars() const { return node_->scalars; }
const Attrs& BackwardContext::attrs() const {
  static const Attrs* empty = new Attrs();
  return node_->attrs != nullptr ? *node_->attrs : *empty;
}
bool BackwardContext::needs_input_grad(int i) const { return node_->next[i].defined(); }

}  // namespace autograd

Tensor Tensor::RequiresGrad(bool on) const {
  absl::Status s = internal::CheckTensor(*this, "RequiresGrad", "self");
  if (!s.ok()) return Error(s);
  internal::AutogradMeta* m = internal::AutogradOf(*this);
  if (m != nullptr && m->grad_fn != nullptr) {
    return Error(absl::InvalidArgumentError(base::Cat(
        "RequiresGrad: the tensor ", shape(), " was computed by ", m->grad_fn->op,
        " from tensors that require grad; only a leaf (a tensor no recorded op made) can be "
        "marked. Detach() it first to make a new leaf")));
  }
  if (dtype() != DType::kFloat32 && dtype() != DType::kFloat64) {
    if (!on) return *this;
    return Error(absl::InvalidArgumentError(
        base::Cat("RequiresGrad: only float32 and float64 leaves have gradients; this one is ",
                  ToString(dtype()), " ", shape(),
                  IsHalfFloat(dtype()) ? " (keep a float32 leaf and Cast it to 16 bits: the "
                                         "gradient flows back through the Cast)"
                                       : "")));
  }
  if (m == nullptr) {
    if (!on) return *this;
    internal::InstallGradRecorder();
    auto meta = std::make_shared<internal::AutogradMeta>();
    meta->meta = this->meta();
    impl()->autograd.Set(std::move(meta));
    m = internal::AutogradOf(*this);
  }
  m->requires_grad = on;
  return *this;
}

bool Tensor::requires_grad() const { return internal::RequiresGradOf(*this); }

Tensor Tensor::grad() const {
  internal::AutogradMeta* m = internal::AutogradOf(*this);
  if (m == nullptr) return Tensor();
  if (m->grad_fn != nullptr) {
    return Error(absl::InvalidArgumentError(
        base::Cat("grad(): the tensor ", shape(), " was computed by ", m->grad_fn->op,
                  "; only leaves (tensors marked RequiresGrad()) accumulate gradients. Use "
                  "autograd::Grad(loss, {t}) for the gradient of an intermediate tensor")));
  }
  std::lock_guard<std::mutex> lock(m->mu);
  if (absl::Status s = internal::MaterializeZeroedGrad(*m); !s.ok()) return Error(s);
  return m->grad;
}

Tensor Tensor::Detach() const {
  if (!ok()) return *this;
  return internal::ValueOnly(*this);
}

}  // namespace eagervm
