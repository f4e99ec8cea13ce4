// The built-in ops: their definitions (name, which inputs they mutate). Their
// kernels are registered by the composition root (InstallKernels,
// ops/op_registry.h). Built-ins infer shapes in their ops:: functions and
// register no InferFn, so ops::Call refuses them.
#include "ops/op_registry.h"

namespace eagervm::internal {
namespace {

// Where a small call may run: element-wise and reduction kernels are short
// for small operands (kInlineWhenSmall, OpOptions::small_runs_inline);
// MatMul's cost grows faster than its bytes, so it always goes to the
// stream's worker (kWorker).
enum class Placement { kInlineWhenSmall, kWorker };

void Define(OpRegistry& r, const char* name, std::vector<int> mutated = {},
            std::vector<int> overwritten = {}, Placement placement = Placement::kInlineWhenSmall) {
  OpOptions o;
  o.mutated_inputs = std::move(mutated);
  o.overwritten_inputs = std::move(overwritten);
  o.small_runs_inline = placement == Placement::kInlineWhenSmall;
  o.pure = true;  // RandomNormal too: its samples depend on (seed, index) only
  (void)r.RegisterOp(name, nullptr, std::move(o), /*never_blocks=*/true);
}

}  // namespace

void RegisterBuiltinOps(OpRegistry& r) {
  Define(r, "Fill");
  // A fill and a copy into `self` never read it: it may be unwritten (Empty)
  // or carry an error, which their write heals.
  Define(r, "FillInplace", {0}, {0});
  Define(r, "Copy");
  Define(r, "CopyInto", {0}, {0});
  Define(r, "Add");
  Define(r, "AddInplace", {0});
  Define(r, "MulScalarInplace", {0});
  // The op library (docs/ops.md).
  for (const char* name : {"Sub", "Mul", "Div", "Maximum", "AddScalar", "SubScalar", "MulScalar",
                           "DivScalar", "Relu", "Neg", "Exp", "Log", "Sigmoid", "Tanh", "Sqrt"}) {
    Define(r, name);
  }
  Define(r, "MatMul", {}, {}, Placement::kWorker);
  for (const char* name : {"Transpose", "Sum", "Mean", "Max", "Cast", "RandomNormal"}) {
    Define(r, name);
  }
  // Comparisons, selection, elementwise math (compare_ops.cc), softmax
  // (softmax_ops.cc), Gelu and LayerNorm (nn_ops.cc), index ops (index_ops.cc).
  for (const char* name :
       {"Eq",      "Ne",         "Lt",           "Le",          "Gt",
        "Ge",      "Where",      "Minimum",      "Abs",         "Pow",
        "Softmax", "LogSoftmax", "CrossEntropy", "Gelu",        "LayerNorm",
        "Argmax",  "Argmin",     "OneHot",       "IndexSelect", "MatMulTransposed"}) {
    Define(r, name);
  }
  Define(r, "Min");          // min_ops.cc
  Define(r, "BatchMatMul");  // matmul_transposed_ops.cc
  Define(r, "Concat");       // concat_ops.cc
  Define(r, "Split");
  Define(r, "SubInplace", {0});  // inplace_arith_ops.cc
  Define(r, "Axpy", {0});
  Define(r, "DivScalarInplace", {0});
}

}  // namespace eagervm::internal
