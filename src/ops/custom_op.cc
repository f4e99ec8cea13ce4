// The custom-op API: RegisterOp, RegisterKernel, OpHandle and ops::Call.
#include "eagervm/custom_op.h"

#include <string_view>

#include "absl/container/inlined_vector.h"
#include "base/str_cat.h"
#include "eagervm/status_macros.h"
#include "eagervm/stream.h"
#include "ops/infer_cache.h"
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

// The miss path: runs the op's InferFn, checks what it returned, and
// remembers the result when the op allows it (then *entry points into the
// cache) or keeps it in *own.
absl::Status Infer(const internal::OpDef& def, std::string_view op,
                   absl::Span<const Tensor> inputs, absl::Span<const Tensor* const> in_ptrs,
                   const Attrs& attrs, internal::InferCache* cache, uint64_t hash,
                   internal::InferEntry* own, const internal::InferEntry** entry) {
  absl::StatusOr<std::vector<TensorMeta>> out_metas;
  std::vector<TensorMeta> in_metas;
  in_metas.reserve(inputs.size());
  for (const Tensor& t : inputs) in_metas.push_back(t.meta());
  try {
    out_metas = def.infer(in_metas, attrs);
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
  for (size_t i = 0; i < out_metas->size(); ++i) {
    const TensorMeta& m = (*out_metas)[i];
    if (!m.shape.IsValid()) {
      return absl::InvalidArgumentError(base::Cat(op, ": InferFn returned an invalid shape ",
                                                  m.shape.ToString(), " for output ", i));
    }
    if (m.device != device) {
      return absl::InvalidArgumentError(base::Cat(op, ": output ", i, " is on ",
                                                  m.device.ToString(), " but the op runs on ",
                                                  device.ToString()));
    }
  }
  internal::InferEntry e;
  e.def = &def;
  e.hash = hash;
  for (const Tensor* t : in_ptrs) e.inputs.push_back(t->meta());
  if (!attrs.empty()) e.attrs = std::make_shared<const Attrs>(attrs);
  e.outputs.assign(out_metas->begin(), out_metas->end());
  if (cache != nullptr && def.options.cache_inference) {
    *entry = cache->Insert(std::move(e));
  } else {
    *own = std::move(e);
    *entry = own;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TensorList> Call(std::string_view op, absl::Span<const Tensor> inputs,
                                const Attrs& attrs) {
  const internal::OpDef* def = FindCached(op);
  if (def == nullptr) [[unlikely]]
    return absl::NotFoundError(base::Cat("ops::Call: unknown op '", op, "'"));
  if (!def->infer) [[unlikely]] {
    return absl::InvalidArgumentError(
        base::Cat("ops::Call: '", op, "' is a built-in op; call it through eagervm::ops::", op));
  }
  absl::InlinedVector<const Tensor*, 4> in_ptrs;
  for (const Tensor& t : inputs) in_ptrs.push_back(&t);
  EAGERVM_RETURN_IF_ERROR(internal::CheckCallInputs(*def, absl::MakeConstSpan(in_ptrs), op));
  // The inference: remembered by this thread, or the InferFn's (then
  // remembered). `entry` is read before anything below could run another
  // ops::Call on this thread (SubmitOp copies the attrs' pointer first).
  internal::InferCache* cache = internal::InferCache::ForThisThread();
  const uint64_t hash = internal::InferCache::Hash(*def, absl::MakeConstSpan(in_ptrs), attrs);
  const internal::InferEntry* entry =
      cache != nullptr ? cache->Find(*def, hash, absl::MakeConstSpan(in_ptrs), attrs) : nullptr;
  internal::InferEntry own;
  if (entry == nullptr) [[unlikely]]
    EAGERVM_RETURN_IF_ERROR(
        Infer(*def, op, inputs, absl::MakeConstSpan(in_ptrs), attrs, cache, hash, &own, &entry));
  TensorList outputs;
  absl::InlinedVector<const Tensor*, 4> out_ptrs;
  for (const TensorMeta& m : entry->outputs) outputs.push_back(internal::NewTensor(m));
  for (const Tensor& t : outputs) out_ptrs.push_back(&t);
  const DType dtype = !inputs.empty() ? inputs[0].dtype() : outputs[0].dtype();
  EAGERVM_RETURN_IF_ERROR(internal::SubmitOp(*def, dtype, absl::MakeConstSpan(in_ptrs),
                                             absl::MakeConstSpan(out_ptrs), {}, &entry->attrs));
  return outputs;
}

}  // namespace ops
}  // namespace eagervm
