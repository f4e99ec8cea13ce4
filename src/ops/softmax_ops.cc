// Softmax and LogSoftmax along one axis, and CrossEntropy (fused log-softmax
// and negative log-likelihood, averaged over the batch). Floating dtypes only;
// all three subtract the maximum before exponentiating, so they stay finite
// for logits in the thousands. An out-of-range label is found by the kernel
// (the labels' values are not known on the calling thread): it poisons the
// loss with a message naming the label, and nothing is read out of bounds.
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

Tensor SoftmaxLike(const internal::OpDef& def, const Tensor& x, int axis) {
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) s = internal::CheckFloating(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  absl::StatusOr<int> a = internal::NormalizeAxis(axis, x.shape(), def.name);
  if (!a.ok()) return Tensor::Error(a.status());
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x}, {Scalar(int64_t{*a})});
}

}  // namespace

Tensor Softmax(const Tensor& x, int axis) {
  return SoftmaxLike(EAGERVM_BUILTIN_OP(kSoftmax), x, axis);
}
Tensor LogSoftmax(const Tensor& x, int axis) {
  return SoftmaxLike(EAGERVM_BUILTIN_OP(kLogSoftmax), x, axis);
}

Tensor CrossEntropy(const Tensor& logits, const Tensor& labels) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kCrossEntropy);
  absl::Status s = internal::CheckTensor(logits, def.name, "logits");
  if (s.ok()) s = internal::CheckTensor(labels, def.name, "labels");
  if (s.ok()) s = internal::CheckFloating(logits, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (logits.dim() != 2) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("CrossEntropy: argument 'logits' must be 2-D [N, C], got ", logits.shape())));
  }
  if (labels.dtype() != DType::kInt64 || labels.dim() != 1) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("CrossEntropy: argument 'labels' must be a 1-D int64 tensor [N], got ",
                  ToString(labels.dtype()), " ", labels.shape())));
  }
  if (labels.size(0) != logits.size(0)) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("CrossEntropy: logits ", logits.shape(), " and labels ", labels.shape(),
                  " disagree on the batch size (", logits.size(0), " != ", labels.size(0), ")")));
  }
  if (logits.size(1) == 0 && logits.size(0) > 0) {
    return Tensor::Error(absl::InvalidArgumentError(base::Cat(
        "CrossEntropy: logits ", logits.shape(), " have no classes; no label can be valid")));
  }
  if (labels.device() != logits.device()) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("CrossEntropy: inputs are on different devices (", logits.device().ToString(),
                  " and ", labels.device().ToString(), "); use To()")));
  }
  return internal::SubmitOpWithOutput(def, logits.dtype(),
                                      TensorMeta{Shape{}, logits.dtype(), logits.device()},
                                      {&logits, &labels});
}

}  // namespace eagervm::ops
