// The custom-op API: RegisterOp, RegisterKernel, OpHandle and ops::Call.
#include "eagervm/custom_op.h"

#include <memory>
#include <string_view>
#include <vector>

#include "base/small_vector.h"
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

// Tensor pointers for a call's operands: on the stack for up to eight
// (every call in practice), else on the heap.
using TensorPtrs = base::SmallVector<const Tensor*, 8>;

absl::Span<const Tensor* const> Span(const TensorPtrs& v) { return {v.data(), v.size()}; }

// Makes the outputs `entry` describes and queues the call: the end of every
// ops::Call that got this far (inferred or remembered).
[[gnu::always_inline]] inline absl::StatusOr<TensorList> Submit(const internal::OpDef& def,
                                                                absl::Span<const Tensor* const> in,
                                                                const internal::InferEntry& entry) {
  TensorList outputs;
  const size_t num_outputs = entry.outputs.size();
  TensorPtrs out;
  out.append_uninitialized(static_cast<uint32_t>(num_outputs));
  for (size_t i = 0; i < num_outputs; ++i) outputs.push_back(internal::NewTensor(entry.outputs[i]));
  for (size_t i = 0; i < num_outputs; ++i) out[i] = &outputs[i];
  const DType dtype = !in.empty() ? internal::ImplOf(*in[0])->meta.dtype : entry.outputs[0].dtype;
  EAGERVM_RETURN_IF_ERROR(internal::SubmitOp(def, dtype, in, Span(out), {}, &entry.attrs));
  return outputs;
}

// The rest of a call the inline path could not finish: one that breaks a
// rule (named here), or whose inference is not the thread's last call's:
// looked up in the thread's cache, else the op's InferFn runs, its result
// checked and remembered (when the op allows).
absl::StatusOr<TensorList> CallSlow(const internal::OpDef& def, std::string_view op,
                                    absl::Span<const Tensor* const> in, const Attrs& attrs) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckCallInputs(def, in, op));
  internal::InferCache* cache =
      def.options.cache_inference ? internal::InferCache::ForThisThread() : nullptr;
  const uint64_t hash = cache != nullptr ? internal::InferCache::Hash(def, in, attrs) : 0;
  if (cache != nullptr) {
    if (const internal::InferEntry* hit = cache->Find(def, hash, in, attrs))
      return Submit(def, in, *hit);
  }
  absl::StatusOr<std::vector<TensorMeta>> out_metas;
  std::vector<TensorMeta> in_metas;
  in_metas.reserve(in.size());
  for (const Tensor* t : in) in_metas.push_back(internal::ImplOf(*t)->meta);  // checked: defined
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
  if (in.empty() && out_metas->empty()) {
    return absl::InvalidArgumentError(base::Cat(op, ": an op needs an input or an output"));
  }
  const Device device = !in.empty() ? in_metas[0].device : (*out_metas)[0].device;
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
  e.inputs.assign(in_metas.begin(), in_metas.end());
  if (!attrs.empty()) e.attrs = std::make_shared<const Attrs>(attrs);
  e.outputs.assign(out_metas->begin(), out_metas->end());
  if (cache == nullptr) return Submit(def, in, e);
  return Submit(def, in, *cache->Insert(std::move(e)));
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
  // The inline path: inputs that pass CheckCallInputs (checked here without
  // building a message) and the same inference as this thread's last call.
  const size_t n = inputs.size();
  TensorPtrs in;
  in.append_uninitialized(static_cast<uint32_t>(n));
  bool usable = n < 64 && def->mutated_mask.fits(n);  // declared mutated inputs exist
  const uint32_t generation = vm::ForkGeneration();
  for (size_t i = 0; i < n; ++i) {
    in[i] = &inputs[i];
    const internal::TensorImpl* t = internal::ImplOf(inputs[i]).get();
    usable = usable && internal::Usable(t, generation) &&
             t->meta.device == internal::ImplOf(inputs[0])->meta.device;
  }
  if (usable) [[likely]] {
    if (const internal::InferEntry* e = internal::InferCache::FindLast(*def, Span(in), attrs))
        [[likely]]
      return Submit(*def, Span(in), *e);
  }
  return CallSlow(*def, op, Span(in), attrs);
}

}  // namespace ops
}  // namespace eagervm
