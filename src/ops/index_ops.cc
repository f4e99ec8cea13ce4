// Index ops: Argmax/Argmin along an axis (-> int64), OneHot, IndexSelect
// (numpy's take along one axis; an embedding lookup is IndexSelect(table, 0,
// ids)) and its inverse IndexAdd (an embedding's gradient). Index values are only known when the op
// runs: an index out of range poisons the output with a message naming it; nothing is read out of
// bounds.
#include <limits>

#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"

namespace eagervm::ops {
namespace {

Tensor ArgReduce(const internal::OpDef& def, const Tensor& x, int axis, bool keepdim) {
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (s.ok()) s = internal::CheckNumeric(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  absl::StatusOr<int> a = internal::NormalizeAxis(axis, x.shape(), def.name);
  if (!a.ok()) return Tensor::Error(a.status());
  if (x.size(*a) == 0) {
    return Tensor::Error(absl::InvalidArgumentError(base::Cat(
        def.name, ": axis ", axis, " of ", x.shape(), " has size 0; there is no element to pick")));
  }
  const Shape out = internal::ReducedShape(x.shape(), *a, keepdim);
  return internal::SubmitOpWithOutput(def, x.dtype(), TensorMeta{out, DType::kInt64, x.device()},
                                      {&x}, {Scalar(int64_t{*a})});
}

absl::Status CheckIndex(const Tensor& index, std::string_view op) {
  if (index.dtype() != DType::kInt64) {
    return absl::InvalidArgumentError(base::Cat(op, ": argument 'index' must be int64, got ",
                                                ToString(index.dtype()), " ", index.shape()));
  }
  return absl::OkStatus();
}

}  // namespace

Tensor Argmax(const Tensor& x, int axis, bool keepdim) {
  return ArgReduce(EAGERVM_BUILTIN_OP(kArgmax), x, axis, keepdim);
}
Tensor Argmin(const Tensor& x, int axis, bool keepdim) {
  return ArgReduce(EAGERVM_BUILTIN_OP(kArgmin), x, axis, keepdim);
}

Tensor OneHot(const Tensor& index, int64_t classes, DType dtype) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kOneHot);
  absl::Status s = internal::CheckTensor(index, def.name, "index");
  if (s.ok()) s = CheckIndex(index, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (classes < 0) {
    return Tensor::Error(
        absl::InvalidArgumentError(base::Cat("OneHot: classes must be >= 0, got ", classes)));
  }
  if (index.dim() >= Shape::kMaxDims) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("OneHot: index ", index.shape(), " has ", index.dim(),
                  " dimensions; the result would have more than ", Shape::kMaxDims)));
  }
  Shape out = index.shape();
  out.push_back(classes);
  return internal::SubmitOpWithOutput(def, dtype, TensorMeta{out, dtype, index.device()}, {&index});
}

namespace {

// The checks IndexSelect and IndexAdd share; returns the normalised axis and
// sets *picked to IndexSelect's result shape: numpy.take's
// x.shape[:axis] + index.shape + x.shape[axis+1:].
absl::StatusOr<int> CheckTake(const Tensor& x, int axis, const Tensor& index, const std::string& op,
                              Shape* picked) {
  absl::Status s = internal::CheckTensor(x, op, "x");
  if (s.ok()) s = internal::CheckTensor(index, op, "index");
  if (s.ok()) s = CheckIndex(index, op);
  if (!s.ok()) return s;
  if (x.device() != index.device()) {
    return absl::InvalidArgumentError(base::Cat(op, ": inputs are on different devices (",
                                                x.device().ToString(), " and ",
                                                index.device().ToString(), "); use To()"));
  }
  absl::StatusOr<int> a = internal::NormalizeAxis(axis, x.shape(), op);
  if (!a.ok()) return a.status();
  if (x.dim() - 1 + index.dim() > Shape::kMaxDims) {
    return absl::InvalidArgumentError(base::Cat(op, ": x ", x.shape(), " indexed by ",
                                                index.shape(), " would have more than ",
                                                Shape::kMaxDims, " dimensions"));
  }
  if (x.size(*a) == 0 && index.numel() > 0) {
    return absl::InvalidArgumentError(base::Cat(op, ": axis ", axis, " of x ", x.shape(),
                                                " has size 0; no index can be valid (index ",
                                                index.shape(), ")"));
  }
  *picked = Shape();
  for (int d = 0; d < *a; ++d) picked->push_back(x.size(d));
  for (int d = 0; d < index.dim(); ++d) picked->push_back(index.size(d));
  for (int d = *a + 1; d < x.dim(); ++d) picked->push_back(x.size(d));
  return a;
}

}  // namespace

Tensor IndexSelect(const Tensor& x, int axis, const Tensor& index) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kIndexSelect);
  Shape out;
  absl::StatusOr<int> a = CheckTake(x, axis, index, def.name, &out);
  if (!a.ok()) return Tensor::Error(a.status());
  return internal::SubmitOpWithOutput(def, x.dtype(), TensorMeta{out, x.dtype(), x.device()},
                                      {&x, &index}, {Scalar(int64_t{*a})});
}

Tensor IndexAdd(const Tensor& x, int axis, const Tensor& index, const Tensor& source) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kIndexAdd);
  Shape picked;
  absl::StatusOr<int> a = CheckTake(x, axis, index, def.name, &picked);
  if (!a.ok()) return Tensor::Error(a.status());
  absl::Status s = internal::CheckTensor(source, def.name, "source");
  if (s.ok()) s = internal::CheckNumeric(x, def.name);
  if (!s.ok()) return Tensor::Error(std::move(s));
  if (source.device() != x.device() || source.dtype() != x.dtype() || source.shape() != picked) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("IndexAdd: source must be ", ToString(x.dtype()), " ", picked, " on ",
                  x.device().ToString(), " (x ", x.shape(), " indexed by ", index.shape(),
                  " along axis ", axis, "), got ", ToString(source.dtype()), " ", source.shape(),
                  " on ", source.device().ToString())));
  }
  return internal::SubmitOpWithOutput(def, x.dtype(), x.meta(), {&x, &index, &source},
                                      {Scalar(int64_t{*a})});
}

}  // namespace eagervm::ops
