// The custom-op API: RegisterOp, RegisterKernel, OpHandle and ops::Call.
#include "eagervm/custom_op.h"

#include <string_view>

#include "absl/container/inlined_vector.h"
#include "base/str_cat.h"
#include "eagervm/status_macros.h"
#include "eagervm/stream.h"
#include "ops/op_registry.h"
#include "ops/submit_op.h"
#include "vm/tensor_impl.h"

namespace eagervm {

absl::Status RegisterOp(std::string name, InferFn infer, OpOptions options) {
  if (!infer) return absl::InvalidArgumentError(base::Cat("RegisterOp(", name, "): empty InferFn"));
  return internal::OpRegistry::Get().RegisterOp(std::move(name), std::move(infer),
                                                std::move(options));
}

absl::Status RegisterKernel(std::string op, DeviceType device, KernelFn kernel) {
  return internal::OpRegistry::Get().RegisterKernel(op, device, std::move(kernel));
}

absl::StatusOr<OpHandle> OpHandle::Find(std::string_view name) {
  const internal::OpDef* def = internal::OpRegistry::Get().Find(name);
  if (def == nullptr) return absl::NotFoundError(base::Cat("unknown op '", name, "'"));
  return internal::OpHandleAccess::Make(def);
}

std::string_view OpHandle::name() const { return internal::OpHandleAccess::Def(*this).name; }

namespace ops {
namespace {

// The registry lookup takes a lock and hashes the name; a program calls the
// same few ops over and over, so each thread remembers its last one. Ops are
// never unregistered (the registry is never destroyed), so a remembered
// OpDef and its name stay valid; a plain pointer is also safe to use during
// thread and static destruction.
const internal::OpDef* FindCached(std::string_view op) {
  thread_local const internal::OpDef* last_def = nullptr;
  if (last_def != nullptr && std::string_view(last_def->name) == op) return last_def;
  const internal::OpDef* def = internal::OpRegistry::Get().Find(op);
  if (def != nullptr) last_def = def;
  return def;
}

// InferFn takes a std::vector of input metas, and a fresh one per call costs a
// malloc and a free, a tenth of an empty op's submission. So each thread lends
// one vector to its ops::Calls; a nested call (an InferFn that calls an op)
// finds it lent and fills one of its own, as does a call during thread
// teardown, once the thread's vector is destroyed.
thread_local bool scratch_destroyed = false;
struct MetaScratch {
  std::vector<TensorMeta> metas;
  bool lent = false;
  ~MetaScratch() { scratch_destroyed = true; }
};
thread_local MetaScratch scratch;

class InputMetas {
 public:
  explicit InputMetas(absl::Span<const Tensor> inputs) {
    if (!scratch_destroyed && !scratch.lent) {
      lent_ = &scratch;
      lent_->lent = true;
      metas_ = &lent_->metas;
    }
    metas_->reserve(inputs.size());
    for (const Tensor& t : inputs) metas_->push_back(t.meta());
  }
  ~InputMetas() {
    if (lent_ == nullptr) return;
    lent_->metas.clear();
    lent_->lent = false;
  }
  InputMetas(const InputMetas&) = delete;
  InputMetas& operator=(const InputMetas&) = delete;

  const std::vector<TensorMeta>& get() const { return *metas_; }

 private:
  MetaScratch* lent_ = nullptr;
  std::vector<TensorMeta> own_;
  std::vector<TensorMeta>* metas_ = &own_;
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> Call(std::string_view op, absl::Span<const Tensor> inputs,
                                         Attrs attrs) {
  const internal::OpDef* def = FindCached(op);
  if (def == nullptr) return absl::NotFoundError(base::Cat("ops::Call: unknown op '", op, "'"));
  if (!def->infer) {
    return absl::InvalidArgumentError(
        base::Cat("ops::Call: '", op, "' is a built-in op; call it through eagervm::ops::", op));
  }
  absl::InlinedVector<const Tensor*, 4> in_ptrs;
  for (const Tensor& t : inputs) in_ptrs.push_back(&t);
  EAGERVM_RETURN_IF_ERROR(internal::CheckCallInputs(*def, absl::MakeConstSpan(in_ptrs), op));
  const InputMetas in_metas(inputs);
  absl::StatusOr<std::vector<TensorMeta>> out_metas;
  try {
    out_metas = def->infer(in_metas.get(), attrs);
  } catch (const std::exception& e) {
    return absl::InternalError(base::Cat(op, ": InferFn threw: ", e.what()));
  } catch (...) {
    return absl::InternalError(base::Cat(op, ": InferFn threw a non-std::exception"));
  }
  if (!out_metas.ok()) {
    return absl::Status(out_metas.status().code(),
                        base::Cat(op, ": ", out_metas.status().message()));
  }
  if (inputs.empty() && out_metas->empty()) {
    return absl::InvalidArgumentError(base::Cat(op, ": an op needs an input or an output"));
  }
  const Device device = !inputs.empty() ? inputs[0].device() : (*out_metas)[0].device;
  std::vector<Tensor> outputs;
  outputs.reserve(out_metas->size());
  for (size_t i = 0; i < out_metas->size(); ++i) {
    TensorMeta m = (*out_metas)[i];
    if (!m.shape.IsValid()) {
      return absl::InvalidArgumentError(base::Cat(op, ": InferFn returned an invalid shape ",
                                                  m.shape.ToString(), " for output ", i));
    }
    if (m.device != device) {
      return absl::InvalidArgumentError(base::Cat(op, ": output ", i, " is on ",
                                                  m.device.ToString(), " but the op runs on ",
                                                  device.ToString()));
    }
    outputs.push_back(internal::NewTensor(m));
  }
  absl::InlinedVector<const Tensor*, 4> out_ptrs;
  for (const Tensor& t : outputs) out_ptrs.push_back(&t);
  std::shared_ptr<const Attrs> shared_attrs;
  if (!attrs.empty()) shared_attrs = std::make_shared<const Attrs>(std::move(attrs));
  EAGERVM_RETURN_IF_ERROR(internal::SubmitOp(
      *def, !inputs.empty() ? inputs[0].dtype() : outputs[0].dtype(), absl::MakeConstSpan(in_ptrs),
      absl::MakeConstSpan(out_ptrs), {}, &shared_attrs));
  return outputs;
}

}  // namespace ops
}  // namespace eagervm
