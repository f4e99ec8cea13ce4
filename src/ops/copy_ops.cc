// Tensor::To: copies between devices (and a plain copy on one device).
#include "base/str_cat.h"
#include "eagervm/tensor.h"
#include "ops/builtin.h"
#include "ops/submit_op.h"
#include "vm/intake.h"
#include "vm/tensor_impl.h"

namespace eagervm {

Tensor Tensor::To(Device device) const {
  absl::Status s = internal::CheckTensor(*this, "To", "self");
  if (!s.ok()) return Error(s);
  if (device != this->device()) {
    if (!is_contiguous()) return Contiguous().To(device);
    TensorMeta m = meta();
    m.device = device;
    Tensor out = internal::NewTensor(m);
    s = vm::PhysicalRun([&](vm::Builder* b) { return b->CopyAcrossDevices(out, *this, "To"); });
    if (!s.ok()) return Error(s);
    if (internal::GradRecorder* recorder = internal::ActiveGradRecorder()) [[unlikely]]
      recorder->RecordCopy(*this, out, "To");
    return out;
  }
  Tensor out = internal::NewTensor(meta());
  s = internal::SubmitOp(EAGERVM_BUILTIN_OP(kCopy), dtype(), {this}, {&out});
  if (!s.ok()) return Error(s);
  return out;
}

}  // namespace eagervm
