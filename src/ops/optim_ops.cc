// SgdStep, SgdMomentumStep and AdamStep (ops/optim_ops.h): their checks on
// the calling thread, then one instruction each.
#include "ops/optim_ops.h"

#include <vector>

#include "base/str_cat.h"
#include "eagervm/status_macros.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/submit_op.h"

namespace eagervm::internal {
namespace {

// `t` is floating and has param's dtype, device and shape ("SgdStep: grad
// float64 [3] does not match param float32 [2]").
absl::Status CheckLike(const Tensor& param, const Tensor& t, const char* op, const char* name) {
  EAGERVM_RETURN_IF_ERROR(CheckTensor(t, op, name));
  if (t.meta() != param.meta()) {
    return absl::InvalidArgumentError(base::Cat(
        op, ": ", name, " ", t.dtype(), " ", t.shape(), " on ", t.device(),
        " does not match param ", param.dtype(), " ", param.shape(), " on ", param.device()));
  }
  return absl::OkStatus();
}

absl::Status CheckParam(const Tensor& param, const char* op) {
  EAGERVM_RETURN_IF_ERROR(CheckTensor(param, op, "param"));
  return CheckFloating(param, op);
}

// A tensor of `shape` and param's dtype and device.
absl::Status CheckSmall(const Tensor& param, const Tensor& t, const Shape& shape, const char* op,
                        const char* name) {
  EAGERVM_RETURN_IF_ERROR(CheckTensor(t, op, name));
  if (t.dtype() != param.dtype() || t.device() != param.device() || t.shape() != shape) {
    return absl::InvalidArgumentError(base::Cat(op, ": ", name, " must be a ", param.dtype(), " ",
                                                shape, " tensor on ", param.device(), ", got ",
                                                t.dtype(), " ", t.shape(), " on ", t.device()));
  }
  return absl::OkStatus();
}

template <typename T>
Tensor HyperOf(Device device, std::initializer_list<double> values) {
  std::vector<T> data;
  for (double v : values) data.push_back(Scalar(v).to<T>());
  return FromVector<T>(data, Shape{static_cast<int64_t>(data.size())}, device);
}

}  // namespace

Tensor FusedHyperparameters(Device device, DType dtype, std::initializer_list<double> values) {
  if (dtype == DType::kFloat64) return HyperOf<double>(device, values);
  return HyperOf<float>(device, values);
}

bool HasFusedSgdKernel(Device device, DType dtype, bool momentum) {
  const OpDef& def = momentum ? EAGERVM_BUILTIN_OP(kSgdMomentumStep) : EAGERVM_BUILTIN_OP(kSgdStep);
  return def.FindKernel(device.type(), dtype) != nullptr;
}

bool HasFusedAdamKernel(Device device, DType dtype) {
  return EAGERVM_BUILTIN_OP(kAdamStep).FindKernel(device.type(), dtype) != nullptr;
}

absl::Status SgdStep(const Tensor& param, const Tensor& grad, const Tensor* momentum_buffer,
                     const Tensor* momentum, double lr, double weight_decay) {
  const char* op = momentum_buffer != nullptr ? "SgdMomentumStep" : "SgdStep";
  EAGERVM_RETURN_IF_ERROR(CheckParam(param, op));
  EAGERVM_RETURN_IF_ERROR(CheckLike(param, grad, op, "grad"));
  // The scalars as the unfused ops pass them (each rounded to the dtype in
  // the kernel); weight_decay also says whether to apply it at all.
  if (momentum_buffer == nullptr) {
    return SubmitOp(EAGERVM_BUILTIN_OP(kSgdStep), param.dtype(), {&param, &grad}, {},
                    {Scalar(weight_decay), Scalar(-lr)});
  }
  EAGERVM_RETURN_IF_ERROR(CheckLike(param, *momentum_buffer, op, "momentum_buffer"));
  EAGERVM_RETURN_IF_ERROR(CheckSmall(param, *momentum, Shape{1}, op, "momentum"));
  return SubmitOp(EAGERVM_BUILTIN_OP(kSgdMomentumStep), param.dtype(),
                  {&param, &grad, momentum_buffer, momentum}, {},
                  {Scalar(weight_decay), Scalar(-lr)});
}

absl::Status AdamStep(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& v,
                      const Tensor& s1, const Tensor& r2, const Tensor& betas, double eps) {
  const char* op = "AdamStep";
  EAGERVM_RETURN_IF_ERROR(CheckParam(param, op));
  EAGERVM_RETURN_IF_ERROR(CheckLike(param, grad, op, "grad"));
  EAGERVM_RETURN_IF_ERROR(CheckLike(param, m, op, "m"));
  EAGERVM_RETURN_IF_ERROR(CheckLike(param, v, op, "v"));
  EAGERVM_RETURN_IF_ERROR(CheckSmall(param, s1, Shape{}, op, "s1"));
  EAGERVM_RETURN_IF_ERROR(CheckSmall(param, r2, Shape{}, op, "r2"));
  EAGERVM_RETURN_IF_ERROR(CheckSmall(param, betas, Shape{4}, op, "betas"));
  return SubmitOp(EAGERVM_BUILTIN_OP(kAdamStep), param.dtype(),
                  {&param, &grad, &m, &v, &s1, &r2, &betas}, {}, {Scalar(eps)});
}

}  // namespace eagervm::internal
