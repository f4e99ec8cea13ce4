// The fused backward ops (ops/grad_ops.h): their checks on the calling
// thread, then one instruction each.
#include "ops/grad_ops.h"

#include "base/str_cat.h"
#include "eagervm/status_macros.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/submit_op.h"

namespace eagervm::internal {
namespace {

// t (argument `name`) is a defined, ok tensor with the dtype, device and
// shape of the floating tensor x (argument `x_name`: "x", or "y" for a
// backward that reads the forward's output).
absl::Status CheckGradLike(const Tensor& x, const Tensor& t, const char* op, const char* name,
                           const char* x_name = "x") {
  EAGERVM_RETURN_IF_ERROR(CheckTensor(x, op, x_name));
  EAGERVM_RETURN_IF_ERROR(CheckTensor(t, op, name));
  EAGERVM_RETURN_IF_ERROR(CheckFloating(x, op));
  if (t.meta() != x.meta()) {
    return absl::InvalidArgumentError(base::Cat(op, ": ", name, " ", t.dtype(), " ", t.shape(),
                                                " on ", t.device(), " does not match ", x_name, " ",
                                                x.dtype(), " ", x.shape(), " on ", x.device()));
  }
  return absl::OkStatus();
}

}  // namespace

bool HasGeluGradKernel(Device device, DType dtype) {
  return EAGERVM_BUILTIN_OP(kGeluGrad).FindKernel(device.type(), dtype) != nullptr;
}

bool HasLayerNormGradKernel(Device device, DType dtype) {
  return EAGERVM_BUILTIN_OP(kLayerNormGrad).FindKernel(device.type(), dtype) != nullptr;
}

bool HasReluGradKernel(Device device, DType dtype) {
  return EAGERVM_BUILTIN_OP(kReluGrad).FindKernel(device.type(), dtype) != nullptr;
}

Tensor ReluGrad(const Tensor& y, const Tensor& g) {
  const OpDef& def = EAGERVM_BUILTIN_OP(kReluGrad);
  if (absl::Status s = CheckGradLike(y, g, def.name.c_str(), "g", "y"); !s.ok()) {
    return Tensor::Error(std::move(s));
  }
  return SubmitOpWithOutput(def, y.dtype(), y.meta(), {&y, &g});
}

Tensor GeluGrad(const Tensor& x, const Tensor& y, const Tensor& g, bool tanh_approximation) {
  const OpDef& def = EAGERVM_BUILTIN_OP(kGeluGrad);
  absl::Status s = CheckGradLike(x, y, def.name.c_str(), "y");
  if (s.ok()) s = CheckGradLike(x, g, def.name.c_str(), "g");
  if (!s.ok()) return Tensor::Error(std::move(s));
  return SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x, &y, &g}, {Scalar(tanh_approximation)});
}

bool HasSoftmaxGradKernel(Device device, DType dtype) {
  return EAGERVM_BUILTIN_OP(kSoftmaxGrad).FindKernel(device.type(), dtype) != nullptr;
}

Tensor SoftmaxGrad(const Tensor& y, const Tensor& g, int64_t axis) {
  const OpDef& def = EAGERVM_BUILTIN_OP(kSoftmaxGrad);
  absl::Status s = CheckGradLike(y, g, def.name.c_str(), "g", "y");
  if (s.ok() && !(axis >= 0 && axis < y.dim())) {
    s = absl::InvalidArgumentError(
        base::Cat(def.name, ": axis ", axis, " is out of range for y ", y.shape()));
  }
  if (!s.ok()) return Tensor::Error(std::move(s));
  return SubmitOpWithOutput(def, y.dtype(), y.meta(), {&y, &g}, {Scalar(axis)});
}

bool HasCrossEntropyGradKernel(Device device, DType dtype) {
  return EAGERVM_BUILTIN_OP(kCrossEntropyGrad).FindKernel(device.type(), dtype) != nullptr;
}

Tensor CrossEntropyGrad(const Tensor& logits, const Tensor& labels, const Tensor& g) {
  const OpDef& def = EAGERVM_BUILTIN_OP(kCrossEntropyGrad);
  const char* op = def.name.c_str();
  absl::Status s = CheckTensor(logits, op, "logits");
  if (s.ok()) s = CheckTensor(labels, op, "labels");
  if (s.ok()) s = CheckTensor(g, op, "g");
  if (s.ok()) s = CheckFloating(logits, op);
  const TensorMeta labels_meta{Shape{logits.dim() == 2 ? logits.size(0) : -1}, DType::kInt64,
                               logits.device()};
  const TensorMeta g_meta{Shape{}, logits.dtype(), logits.device()};
  if (s.ok() && (logits.dim() != 2 || labels.meta() != labels_meta || g.meta() != g_meta)) {
    s = absl::InvalidArgumentError(base::Cat(op, ": logits ", logits.dtype(), " ", logits.shape(),
                                             ", labels ", labels.dtype(), " ", labels.shape(),
                                             ", g ", g.dtype(), " ", g.shape(),
                                             ": want [N, C], int64 [N] and a 0-d g like logits"));
  }
  if (!s.ok()) return Tensor::Error(std::move(s));
  return SubmitOpWithOutput(def, logits.dtype(), logits.meta(), {&logits, &labels, &g});
}

absl::StatusOr<std::vector<Tensor>> LayerNormGrad(const Tensor& x, const Tensor& weight,
                                                  const Tensor& g, double eps) {
  const OpDef& def = EAGERVM_BUILTIN_OP(kLayerNormGrad);
  const char* op = def.name.c_str();
  EAGERVM_RETURN_IF_ERROR(CheckGradLike(x, g, op, "g"));
  EAGERVM_RETURN_IF_ERROR(CheckTensor(weight, op, "weight"));
  const int64_t d = x.dim() == 0 ? -1 : x.size(x.dim() - 1);
  const TensorMeta wmeta{Shape{d}, x.dtype(), x.device()};
  if (x.dim() == 0 || weight.meta() != wmeta) {
    return absl::InvalidArgumentError(base::Cat(op, ": weight ", weight.dtype(), " ",
                                                weight.shape(), " does not fit x ", x.dtype(), " ",
                                                x.shape()));
  }
  std::vector<Tensor> out = {NewTensor(x.meta()), NewTensor(wmeta), NewTensor(wmeta)};
  const Tensor* inputs[] = {&x, &weight, &g};
  const Tensor* outputs[] = {&out[0], &out[1], &out[2]};
  const Scalar scalars[] = {Scalar(eps)};
  EAGERVM_RETURN_IF_ERROR(SubmitOp(def, x.dtype(), absl::MakeConstSpan(inputs),
                                   absl::MakeConstSpan(outputs), absl::MakeConstSpan(scalars)));
  return out;
}

}  // namespace eagervm::internal
