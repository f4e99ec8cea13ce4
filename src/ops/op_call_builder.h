// Building and submitting OpCall instructions: the path every op takes after
// its inputs were validated on the calling thread.
#ifndef EAGERVM_OPS_OP_CALL_BUILDER_H_
#define EAGERVM_OPS_OP_CALL_BUILDER_H_

#include <initializer_list>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/custom_op.h"
#include "eagervm/stream.h"
#include "eagervm/tensor.h"
#include "ops/op_def.h"

namespace eagervm::vm {
class Instruction;
class VmStream;
}  // namespace eagervm::vm

namespace eagervm::internal {

// OK iff `t` is defined and not an error tensor; otherwise the status to
// return from op `op`, naming the argument.
absl::Status CheckTensor(const Tensor& t, std::string_view op, std::string_view arg);
// The runtime stream for `s`, or an error naming `op`.
absl::StatusOr<vm::VmStream*> ResolveStream(Stream s, std::string_view op);

struct OpCallRequest {
  const OpDef* def = nullptr;
  DType kernel_dtype = DType::kFloat32;  // picks the typed kernel
  absl::Span<const Tensor* const> inputs;
  absl::Span<const Tensor* const> outputs;
  absl::Span<const Scalar> scalars;
  std::shared_ptr<const Attrs> attrs;
};

// An OpCall instruction ready to append (state kBuilding). Fails (queuing
// nothing) if there is no kernel for the stream's device and kernel_dtype.
absl::StatusOr<vm::Instruction*> BuildOpCall(const OpCallRequest& req, vm::VmStream* stream);
// Builds and submits on the current stream of the first input's (or first
// output's) device.
absl::Status SubmitOpCall(const OpCallRequest& req);
// Hands one built instruction to the VM.
absl::Status SubmitInstruction(vm::Instruction* instr);

// Convenience for built-ins: SubmitOpCall with brace lists.
absl::Status Run(const OpDef& def, DType dtype, std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs,
                 std::initializer_list<Scalar> scalars = {});

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OP_CALL_BUILDER_H_
