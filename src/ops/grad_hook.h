// The ops layer's hook for autograd (src/autograd, a layer above ops): once
// the first tensor requires grad, every op call goes through the recorder,
// which refuses in-place ops that would break a gradient, bumps the versions
// of the storages the op writes, submits the op and records it on the tape.
// Until then the hook costs one load and a not-taken branch per op.
#ifndef EAGERVM_OPS_GRAD_HOOK_H_
#define EAGERVM_OPS_GRAD_HOOK_H_

#include <atomic>
#include <memory>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "eagervm/kernel.h"
#include "eagervm/scalar.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

struct OpDef;

// One op call as SubmitOp sees it. Spans and pointers live for the call.
struct OpCallRecord {
  const OpDef* def;
  DType dtype;
  absl::Span<const Tensor* const> inputs;
  absl::Span<const Tensor* const> outputs;
  absl::Span<const Scalar> scalars;
  const std::shared_ptr<const Attrs>* attrs;  // null: none
  const char* name;                           // null: the op's name
};

class GradRecorder {
 public:
  virtual ~GradRecorder() = default;
  // Submits the call (SubmitOpUnrecorded) with the checks and records
  // around it. Calling thread; returns SubmitOp's status.
  virtual absl::Status Submit(const OpCallRecord& call) = 0;
  // Records a differentiable step that is not an op call: `out` made from
  // `in` by `op` ("To" across devices). Calling thread.
  virtual void RecordCopy(const Tensor& in, const Tensor& out, const char* op) = 0;
  // Before an in-place write that is not an op call (CopyInto across
  // devices): refuses it where a gradient would be lost, else bumps `self`'s
  // version. Calling thread.
  virtual absl::Status BeforeInplace(const Tensor& self, const Tensor& read, const char* op) = 0;
};

// Null until autograd is first used; then set for the process's life.
inline std::atomic<GradRecorder*> g_grad_recorder{nullptr};

inline GradRecorder* ActiveGradRecorder() {
  return g_grad_recorder.load(std::memory_order_acquire);
}

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_GRAD_HOOK_H_
