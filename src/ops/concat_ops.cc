// Concat and Split along one axis. Both copy (one instruction each): Concat
// reads every input, Split writes every part. Inputs share dtype, device and
// rank, and agree on every dimension but the axis.
#include <vector>

#include "base/str_cat.h"
#include "eagervm/ops.h"
#include "ops/builtin.h"
#include "ops/op_checks.h"
#include "ops/op_util.h"
#include "ops/submit_op.h"
#include "vm/tensor_impl.h"

namespace eagervm::ops {

Tensor Concat(absl::Span<const Tensor> xs, int axis) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kConcat);
  if (xs.empty()) {
    return Tensor::Error(absl::InvalidArgumentError("Concat: needs at least one tensor, got none"));
  }
  const Tensor& first = xs[0];
  absl::Status s = internal::CheckTensor(first, def.name, "xs[0]");
  if (!s.ok()) return Tensor::Error(std::move(s));
  absl::StatusOr<int> a = internal::NormalizeAxis(axis, first.shape(), def.name);
  if (!a.ok()) return Tensor::Error(a.status());
  Shape out = first.shape();
  std::vector<const Tensor*> inputs;
  inputs.reserve(xs.size());
  inputs.push_back(&first);
  int64_t total = first.size(*a);
  for (size_t i = 1; i < xs.size(); ++i) {
    const Tensor& x = xs[i];
    const std::string arg = base::Cat("xs[", i, "]");
    s = internal::CheckTensor(x, def.name, arg);
    if (!s.ok()) return Tensor::Error(std::move(s));
    if (x.dtype() != first.dtype() || x.device() != first.device()) {
      return Tensor::Error(absl::InvalidArgumentError(
          base::Cat("Concat: ", arg, " is ", ToString(x.dtype()), " on ", x.device().ToString(),
                    " but xs[0] is ", ToString(first.dtype()), " on ", first.device().ToString())));
    }
    bool same = x.dim() == first.dim();
    for (int d = 0; same && d < x.dim(); ++d) same = d == *a || x.size(d) == first.size(d);
    if (!same) {
      return Tensor::Error(absl::InvalidArgumentError(
          base::Cat("Concat: ", arg, " ", x.shape(), " does not match xs[0] ", first.shape(),
                    " outside axis ", axis)));
    }
    total += x.size(*a);
    inputs.push_back(&x);
  }
  out[*a] = total;
  Tensor result = internal::NewTensor(TensorMeta{out, first.dtype(), first.device()});
  const Tensor* outputs[] = {&result};
  const Scalar scalars[] = {Scalar(int64_t{*a})};
  s = internal::SubmitOp(def, first.dtype(), absl::MakeConstSpan(inputs),
                         absl::MakeConstSpan(outputs), absl::MakeConstSpan(scalars));
  if (!s.ok()) return Tensor::Error(std::move(s));
  return result;
}

std::vector<Tensor> Split(const Tensor& x, int64_t parts, int axis) {
  const internal::OpDef& def = EAGERVM_BUILTIN_OP(kSplit);
  auto fail = [&](absl::Status st) {
    return std::vector<Tensor>(static_cast<size_t>(parts > 0 && parts <= 4096 ? parts : 1),
                               Tensor::Error(st));
  };
  absl::Status s = internal::CheckTensor(x, def.name, "x");
  if (!s.ok()) return fail(std::move(s));
  absl::StatusOr<int> a = internal::NormalizeAxis(axis, x.shape(), def.name);
  if (!a.ok()) return fail(a.status());
  const int64_t n = x.size(*a);
  if (parts <= 0 || n % parts != 0) {
    return fail(
        absl::InvalidArgumentError(base::Cat("Split: axis ", axis, " of ", x.shape(), " (size ", n,
                                             ") cannot be split into ", parts, " equal parts")));
  }
  Shape part_shape = x.shape();
  part_shape[*a] = n / parts;
  std::vector<Tensor> out;
  std::vector<const Tensor*> outputs;
  out.reserve(static_cast<size_t>(parts));
  for (int64_t i = 0; i < parts; ++i) {
    out.push_back(internal::NewTensor(TensorMeta{part_shape, x.dtype(), x.device()}));
  }
  for (const Tensor& t : out) outputs.push_back(&t);
  const Tensor* inputs[] = {&x};
  const Scalar scalars[] = {Scalar(int64_t{*a})};
  s = internal::SubmitOp(def, x.dtype(), absl::MakeConstSpan(inputs), absl::MakeConstSpan(outputs),
                         absl::MakeConstSpan(scalars));
  if (!s.ok()) return fail(std::move(s));
  return out;
}

}  // namespace eagervm::ops
