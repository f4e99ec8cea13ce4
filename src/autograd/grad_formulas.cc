// The formula registry (built-ins once, custom ops by RegisterBackward) and
// the helpers the built-in formulas share.
#include "autograd/grad_formulas.h"

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "base/str_cat.h"
#include "eagervm/custom_op.h"

namespace eagervm::internal {
namespace {

struct Registry {
  std::mutex mu;
  // Formulas are never removed: a node may hold a pointer to one.
  absl::flat_hash_map<std::string, std::unique_ptr<GradFormula>> formulas;
};
Registry& TheRegistry() {
  static auto* r = new Registry();
  return *r;
}

}  // namespace

bool DefineGradFormula(std::string_view name, autograd::BackwardFn fn, uint64_t saved_inputs,
                       uint64_t saved_outputs) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, inserted] = r.formulas.try_emplace(std::string(name));
  if (!inserted) return false;
  it->second =
      std::make_unique<GradFormula>(GradFormula{std::move(fn), saved_inputs, saved_outputs});
  return true;
}

const GradFormula* FindGradFormula(std::string_view op) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.formulas.find(absl::string_view(op.data(), op.size()));  // no string made
  return it == r.formulas.end() ? nullptr : it->second.get();
}

void RegisterBuiltinGradFormulas() {
  static std::once_flag once;
  std::call_once(once, [] {
    DefineElementwiseGrads();
    DefineReduceGrads();
    DefineLinalgGrads();
    DefineNnGrads();
  });
}

Tensor SumTo(const Tensor& g, const Shape& shape) {
  Tensor r = g;
  while (r.ok() && r.dim() > Rank(shape)) r = ops::Sum(r, 0);
  for (int d = 0; r.ok() && d < Rank(shape); ++d) {
    if (shape[d] == 1 && r.size(d) != 1) r = ops::Sum(r, d, /*keepdim=*/true);
  }
  return r;
}

Tensor UnReduce(const Tensor& g, const TensorMeta& in, int64_t axis) {
  Tensor kept = g;
  if (axis >= 0 && g.dim() < Rank(in.shape)) {  // put the reduced axis back, as size 1
    Shape s = in.shape;
    s[static_cast<int>(axis)] = 1;
    kept = g.Reshape(s);
  }
  return ops::Add(Zeros(in.shape, in.dtype, in.device), kept);
}

Tensor ScalarLike(double value, const Tensor& like) {
  return Full(Shape{}, value, like.dtype(), like.device());
}

Tensor MaskLike(const Tensor& cond, const Tensor& like) { return ops::Cast(cond, like.dtype()); }

}  // namespace eagervm::internal

namespace eagervm::autograd {

absl::Status RegisterBackward(std::string_view op, BackwardFn fn) {
  internal::RegisterBuiltinGradFormulas();
  absl::StatusOr<OpHandle> handle = OpHandle::Find(op);
  if (!handle.ok()) {
    return absl::NotFoundError(
        base::Cat("RegisterBackward: no op named '", op, "' is registered (RegisterOp first)"));
  }
  if (!fn) {
    return absl::InvalidArgumentError(
        base::Cat("RegisterBackward: the backward of '", op, "' is empty"));
  }
  if (!internal::DefineGradFormula(op, std::move(fn))) {
    return absl::AlreadyExistsError(
        base::Cat("RegisterBackward: '", op, "' already has a backward"));
  }
  return absl::OkStatus();
}

}  // namespace eagervm::autograd
