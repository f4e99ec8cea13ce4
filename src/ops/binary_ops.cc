// Out-of-place binary ops.
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_call_builder.h"
#include "ops/op_checks.h"
#include "vm/tensor_impl.h"

namespace eagervm::ops {

Tensor Add(const Tensor& a, const Tensor& b) {
  absl::Status s = internal::CheckSameMeta(a, b, "Add");
  if (s.ok()) s = internal::CheckNumeric(a, "Add");
  if (!s.ok()) return Tensor::Error(s);
  Tensor out = internal::NewTensor(a.meta());
  s = internal::Run(EAGERVM_BUILTIN_OP("Add"), a.dtype(), {&a, &b}, {&out});
  if (!s.ok()) return Tensor::Error(s);
  return out;
}

}  // namespace eagervm::ops

namespace eagervm {
Tensor operator+(const Tensor& a, const Tensor& b) { return ops::Add(a, b); }
}  // namespace eagervm
