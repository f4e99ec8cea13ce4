// InstructionsBuilder::Call: the public builder's op call. It is declared
// with the builder (include/eagervm/instructions_builder.h) but lives in the
// ops layer, the one that knows ops: it turns the OpHandle into a
// vm::KernelCall, as every op does, and hands it to the builder.
#include "absl/container/inlined_vector.h"
#include "base/str_cat.h"
#include "eagervm/instructions_builder.h"
#include "eagervm/status_macros.h"
#include "ops/strided.h"
#include "ops/submit_op.h"
#include "vm/intake.h"

namespace eagervm::vm {

absl::Status InstructionsBuilder::Call(const OpHandle& op, absl::Span<const Tensor> inputs,
                                       absl::Span<const Tensor> outputs, const Attrs& attrs,
                                       Stream stream) {
  const internal::OpDef& def = internal::OpHandleAccess::Def(op);
  absl::InlinedVector<const Tensor*, 4> in, out;
  for (const Tensor& t : inputs) in.push_back(&t);
  for (const Tensor& t : outputs) out.push_back(&t);
  EAGERVM_RETURN_IF_ERROR(internal::CheckCallInputs(def, absl::MakeConstSpan(in), def.name));
  if (in.empty() && out.empty()) {
    return absl::InvalidArgumentError(
        base::Cat(def.name, ": an op call needs at least one tensor"));
  }
  auto on_stream = [&](const Tensor& t, const char* kind, size_t i) -> absl::Status {
    EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(t, def.name, base::Cat(kind, " ", i)));
    if (t.device() == stream.device()) return absl::OkStatus();
    return absl::InvalidArgumentError(base::Cat(def.name, ": ", kind, " ", i, " is on ",
                                                t.device().ToString(), " but the stream is on ",
                                                stream.device().ToString(), " (use To())"));
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    EAGERVM_RETURN_IF_ERROR(on_stream(inputs[i], "input", i));
  for (size_t i = 0; i < outputs.size(); ++i) {
    EAGERVM_RETURN_IF_ERROR(on_stream(outputs[i], "output", i));
  }
  // Strided views (ops/strided.h): a read one gets a compact copy; a written
  // one (an output, a mutated input) must be compact.
  absl::InlinedVector<Tensor, 4> compact(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i]->is_contiguous()) continue;
    if (def.mutated_mask.has(i)) {
      return absl::InvalidArgumentError(
          base::Cat(def.name, ": input ", i, " is written but is a strided view ",
                    in[i]->shape().ToString(), "; write to a Contiguous() copy"));
    }
    compact[i] = internal::MakeContiguous(*in[i], def.name.c_str());
    EAGERVM_RETURN_IF_ERROR(compact[i].status());
    in[i] = &compact[i];
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i]->is_contiguous()) {
      return absl::InvalidArgumentError(base::Cat(def.name, ": output ", i, " is a strided view ",
                                                  out[i]->shape().ToString(),
                                                  "; outputs must be compact"));
    }
  }
  const DType dtype = !in.empty() ? in[0]->dtype() : out[0]->dtype();
  absl::StatusOr<KernelCall> call = internal::KernelCallFor(def, stream, dtype);
  if (!call.ok()) return call.status();
  std::shared_ptr<const Attrs> shared_attrs;
  if (!attrs.empty()) shared_attrs = std::make_shared<const Attrs>(attrs);
  const KernelCallArgs args{absl::MakeConstSpan(in), absl::MakeConstSpan(out), {}, &shared_attrs};
  return Builder::From(this)->CallKernel(*call, args, stream);
}

}  // namespace eagervm::vm
