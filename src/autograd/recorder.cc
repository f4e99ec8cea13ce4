// The recorder: installed into the ops layer's hook (ops/grad_hook.h) and
// the views' hook (vm/tensor_impl.h) on first use. On the calling thread,
// for every op call: refuse in-place writes that would lose a gradient, bump
// the versions of written storages, submit, and record a node when an input
// requires grad.
#include <atomic>
#include <mutex>

#include "autograd/grad_node.h"
#include "base/str_cat.h"
#include "ops/grad_hook.h"
#include "ops/op_def.h"
#include "ops/submit_op.h"

namespace eagervm::internal {
namespace {

std::atomic<uint64_t> g_sequence{0};

std::string InplaceRefusal(std::string_view op, int written, int read, bool written_requires) {
  if (written_requires) {
    return base::Cat(
        op, ": input ", written,
        " is written in place but requires grad (a parameter, or computed from one); "
        "an in-place write to it cannot be differentiated. To update a parameter, use an "
        "optimizer (optim::Sgd, optim::Adam) or write it in place inside "
        "autograd::NoGradGuard (w = w - lr * g would make w a new tensor, no longer a "
        "parameter); to compute with it, use the out-of-place op");
  }
  return base::Cat(op, ": input ", read,
                   " requires grad but the op writes its result in place into "
                   "input ",
                   written,
                   ", which does not; the gradient would be lost. Use the "
                   "out-of-place op, or autograd::NoGradGuard if no gradient is wanted");
}

// Makes `out` the output `k` of `node`.
void AttachOutput(const Tensor& out, const std::shared_ptr<GradNode>& node, int k) {
  auto meta = std::make_shared<AutogradMeta>();
  meta->grad_fn = node;
  meta->output_nr = k;
  ImplOf(out)->autograd.Set(std::move(meta));
}

GradEdge EdgeTo(const Tensor& t) {
  GradEdge e;
  AutogradMeta* m = AutogradOf(t);
  if (m == nullptr) return e;
  if (m->grad_fn != nullptr) {
    e.node = m->grad_fn;
    e.output_nr = m->output_nr;
  } else if (m->requires_grad) {
    e.leaf = ImplOf(t)->autograd.shared();
  }
  return e;
}

// The formula of `def`, cached in it after the first lookup by name.
const GradFormula* FormulaOf(const OpDef& def) {
  if (const void* f = def.grad_formula.load(std::memory_order_acquire)) [[likely]]
    return static_cast<const GradFormula*>(f);
  const GradFormula* f = FindGradFormula(def.name);
  if (f != nullptr) def.grad_formula.store(f, std::memory_order_release);
  return f;
}

// A node for a call of `op` (a name that lives forever) with backward
// `formula` (null: none), reading `inputs`, writing `outputs`.
std::shared_ptr<GradNode> NewNode(std::string_view op, const GradFormula* formula,
                                  absl::Span<const Tensor* const> inputs,
                                  absl::Span<const Tensor* const> outputs) {
  auto node = std::make_shared<GradNode>();
  node->op = op;
  node->formula = formula;
  node->sequence = g_sequence.fetch_add(1, std::memory_order_relaxed);
  const uint64_t save_in = node->formula ? node->formula->saved_inputs : ~uint64_t{0};
  const uint64_t save_out = node->formula ? node->formula->saved_outputs : ~uint64_t{0};
  node->next.reserve(inputs.size());
  node->input_metas.reserve(inputs.size());
  node->inputs.reserve(inputs.size());
  node->output_metas.reserve(outputs.size());
  node->outputs.reserve(outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    node->next.push_back(EdgeTo(*inputs[i]));
    node->input_metas.push_back(inputs[i]->meta());
    node->inputs.push_back(i < 64 && ((save_in >> i) & 1) ? Save(*inputs[i]) : SavedTensor{});
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    node->output_metas.push_back(outputs[k]->meta());
    node->outputs.push_back(k < 64 && ((save_out >> k) & 1) ? Save(*outputs[k]) : SavedTensor{});
  }
  return node;
}

void AttachFloatingOutputs(absl::Span<const Tensor* const> outputs,
                           const std::shared_ptr<GradNode>& node) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (IsFloating(outputs[k]->dtype())) AttachOutput(*outputs[k], node, static_cast<int>(k));
  }
}

bool AnyFloating(absl::Span<const Tensor* const> ts) {
  for (const Tensor* t : ts)
    if (IsFloating(t->dtype())) return true;
  return false;
}

class Recorder final : public GradRecorder {
 public:
  absl::Status Submit(const OpCallRecord& call) override {
    const OpDef& def = *call.def;
    const bool grad_on = GradModeEnabled();
    bool any_requires = false;
    int written = -1;
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      if (def.mutated_mask.has(i) && written < 0) written = static_cast<int>(i);
      if (grad_on && RequiresGradOf(*call.inputs[i])) any_requires = true;
    }
    if (written >= 0) {
      if (any_requires) {
        const std::string_view op =
            call.name != nullptr ? std::string_view(call.name) : std::string_view(def.name);
        for (size_t i = 0; i < call.inputs.size(); ++i) {
          if (!RequiresGradOf(*call.inputs[i])) continue;
          const bool w = def.mutated_mask.has(i);
          return absl::InvalidArgumentError(
              InplaceRefusal(op, w ? static_cast<int>(i) : written, static_cast<int>(i), w));
        }
      }
      for (size_t i = 0; i < call.inputs.size(); ++i) {
        if (!def.mutated_mask.has(i)) continue;
        if (const auto& impl = ImplOf(*call.inputs[i]); impl->storage != nullptr) {
          impl->storage->BumpVersion();
        }
      }
    }
    absl::Status s = SubmitOpUnrecorded(def, call.dtype, call.inputs, call.outputs, call.scalars,
                                        call.attrs, call.name);
    if (!s.ok() || !any_requires || call.outputs.empty() || !AnyFloating(call.outputs)) return s;
    std::shared_ptr<GradNode> node = NewNode(def.name, FormulaOf(def), call.inputs, call.outputs);
    node->scalars.assign(call.scalars.begin(), call.scalars.end());
    if (call.attrs != nullptr) node->attrs = *call.attrs;
    AttachFloatingOutputs(call.outputs, node);
    return s;
  }

  void RecordCopy(const Tensor& in, const Tensor& out, const char* op) override {
    if (!GradModeEnabled() || !RequiresGradOf(in)) return;
    const Tensor* ins[] = {&in};
    const Tensor* outs[] = {&out};
    AttachFloatingOutputs(outs, NewNode(op, FindGradFormula(op), ins, outs));
  }

  absl::Status BeforeInplace(const Tensor& self, const Tensor& read, const char* op) override {
    if (GradModeEnabled()) {
      if (RequiresGradOf(self)) return absl::InvalidArgumentError(InplaceRefusal(op, 0, 0, true));
      if (RequiresGradOf(read)) return absl::InvalidArgumentError(InplaceRefusal(op, 0, 1, false));
    }
    ImplOf(self)->storage->BumpVersion();
    return absl::OkStatus();
  }
};

void RecordView(const Tensor& base, const Tensor& view, const char* op) {
  if (!GradModeEnabled() || !RequiresGradOf(base)) return;
  const Tensor* ins[] = {&base};
  const Tensor* outs[] = {&view};
  std::shared_ptr<GradNode> node = NewNode(op, FindGradFormula(op), ins, outs);
  auto geometry = std::make_shared<TensorImpl>(*ImplOf(view));
  geometry->storage.reset();
  geometry->offset -= ImplOf(base)->offset;
  node->view_geometry = std::move(geometry);
  auto base_geometry = std::make_shared<TensorImpl>(*ImplOf(base));
  base_geometry->storage.reset();
  base_geometry->offset = 0;
  node->base_geometry = std::move(base_geometry);
  AttachFloatingOutputs(outs, node);
}

}  // namespace

void InstallGradRecorder() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterBuiltinGradFormulas();
    static Recorder* recorder = new Recorder();  // never destroyed: ops may run at exit
    g_view_recorder.store(&RecordView, std::memory_order_release);
    g_grad_recorder.store(recorder, std::memory_order_release);
  });
}

}  // namespace eagervm::internal
