// The in-place family: the VM orders each against every earlier read and
// write of `self` (WAR/WAW).
#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "eagervm/status_macros.h"
#include "ops/builtin.h"
#include "ops/grad_hook.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/overlap.h"
#include "ops/strided.h"
#include "ops/submit_op.h"
#include "vm/intake.h"
#include "vm/tensor_impl.h"

namespace eagervm::ops {

absl::Status AddInplace(const Tensor& self, const Tensor& other) {
  if (internal::OverlapsOtherThanElementwise(self, other)) [[unlikely]] {
    absl::StatusOr<Tensor> staged = internal::StagedIfOverlapping(self, other, "AddInplace");
    if (!staged.ok()) return staged.status();
    return AddInplace(self, *staged);
  }
  if (internal::UsableWithSameMeta(self, other) &&
      internal::ImplOf(self)->meta.dtype != DType::kBool) [[likely]] {
    return internal::SubmitOp(EAGERVM_BUILTIN_OP(kAddInplace), internal::ImplOf(self)->meta.dtype,
                              {&self, &other}, {});
  }
  EAGERVM_RETURN_IF_ERROR(internal::CheckBroadcastsInto(self, other, "AddInplace"));
  return internal::SubmitOp(EAGERVM_BUILTIN_OP(kAddInplace), self.dtype(), {&self, &other}, {});
}

absl::Status MulScalarInplace(const Tensor& self, Scalar s) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(self, "MulScalarInplace", "self"));
  EAGERVM_RETURN_IF_ERROR(internal::CheckNumeric(self, "MulScalarInplace"));
  EAGERVM_RETURN_IF_ERROR(internal::CheckScalarFits(s, self.dtype(), "MulScalarInplace"));
  return internal::SubmitOp(EAGERVM_BUILTIN_OP(kMulScalarInplace), self.dtype(), {&self}, {}, {s});
}

absl::Status CopyInto(const Tensor& dst, const Tensor& src) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(dst, "CopyInto", "dst"));
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(src, "CopyInto", "src"));
  if (dst.shape() != src.shape() || dst.dtype() != src.dtype()) {
    return absl::InvalidArgumentError(
        base::Cat("CopyInto: dst is ", ToString(dst.dtype()), " ", dst.shape().ToString(),
                  " but src is ", ToString(src.dtype()), " ", src.shape().ToString()));
  }
  if (dst.device() != src.device()) {
    if (internal::GradRecorder* recorder = internal::ActiveGradRecorder()) [[unlikely]]
      EAGERVM_RETURN_IF_ERROR(recorder->BeforeInplace(dst, src, "CopyInto"));
    if (!src.is_contiguous()) return CopyInto(dst, internal::MakeContiguous(src, "CopyInto"));
    if (!dst.is_contiguous()) {  // across devices into a compact copy, then into the view
      Tensor staged = internal::NewTensor(dst.meta());
      absl::Status s = vm::PhysicalRun(
          [&](vm::Builder* b) { return b->CopyAcrossDevices(staged, src, "CopyInto"); });
      if (!s.ok()) return s;
      return CopyInto(dst, staged);
    }
    return vm::PhysicalRun(
        [&](vm::Builder* b) { return b->CopyAcrossDevices(dst, src, "CopyInto"); });
  }
  if (internal::OverlapsOtherThanElementwise(dst, src)) [[unlikely]] {
    absl::StatusOr<Tensor> staged = internal::StagedIfOverlapping(dst, src, "CopyInto");
    if (!staged.ok()) return staged.status();
    return internal::SubmitOp(EAGERVM_BUILTIN_OP(kCopyInto), dst.dtype(), {&dst, &*staged}, {});
  }
  return internal::SubmitOp(EAGERVM_BUILTIN_OP(kCopyInto), dst.dtype(), {&dst, &src}, {});
}

absl::Status FillInplace(const Tensor& self, Scalar value) {
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(self, "FillInplace", "self"));
  EAGERVM_RETURN_IF_ERROR(internal::CheckScalarFits(value, self.dtype(), "FillInplace"));
  return internal::SubmitOp(EAGERVM_BUILTIN_OP(kFillInplace), self.dtype(), {&self}, {}, {value});
}

}  // namespace eagervm::ops

namespace eagervm {

Tensor& operator+=(Tensor& a, const Tensor& b) {
  absl::Status s = ops::AddInplace(a, b);
  if (!s.ok()) a = Tensor::Error(std::move(s));
  return a;
}

}  // namespace eagervm
