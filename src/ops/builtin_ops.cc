// The built-in ops' definitions, from the table in ops/builtin.h (name,
// which inputs they mutate, whether a small call may run inline). Their
// kernels are registered by the composition root (InstallKernels,
// ops/op_registry.h). Built-ins infer shapes in their ops:: functions and
// register no InferFn, so ops::Call refuses them.
#include "ops/builtin.h"
#include "ops/op_registry.h"

namespace eagervm::internal {
namespace {

std::vector<int> Indices(uint64_t mask) {
  std::vector<int> out;
  for (int i = 0; i < 64; ++i)
    if ((mask >> i) & 1) out.push_back(i);
  return out;
}

void Define(OpRegistry& r, const BuiltinOp& op) {
  OpOptions o;
  o.mutated_inputs = Indices(op.mutated);
  o.overwritten_inputs = Indices(op.overwritten);
  o.small_runs_inline = op.small_runs_inline;
  o.pure = true;  // RandomNormal too: its samples depend on (seed, index) only
  (void)r.RegisterOp(op.name, nullptr, std::move(o), /*never_blocks=*/true, op.gathered);
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& r) {
  for (const BuiltinOp* op : builtin::kAllBuiltins) Define(r, *op);
}

}  // namespace eagervm::internal
