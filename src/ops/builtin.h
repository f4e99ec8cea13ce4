// The built-in ops' identity, in one compile-time table: each op's name and
// the facts its definition holds (which inputs it writes, whether a small
// call may run inline). RegisterBuiltinOps defines every op of kAllBuiltins,
// the kernel folders register their kernels by these constants
// (RegisterCpu/RegisterCuda), and ops:: functions find an op's OpDef with
// EAGERVM_BUILTIN_OP(kName): a misspelt op is a compile error, not an abort
// at its first call.
#ifndef EAGERVM_OPS_BUILTIN_H_
#define EAGERVM_OPS_BUILTIN_H_

#include <cstddef>
#include <cstdint>

#include "ops/op_registry.h"

namespace eagervm::internal {

struct BuiltinOp {
  const char* name;
  uint64_t mutated = 0;      // bit i: the kernel writes input i (OpOptions::mutated_inputs)
  uint64_t overwritten = 0;  // bit i: ... without reading it (OpOptions::overwritten_inputs)
  // OpOptions::small_runs_inline. Element-wise and reduction kernels are
  // short for small operands; a matrix product's cost grows faster than its
  // bytes, so MatMul always goes to the stream's worker.
  bool small_runs_inline = true;
  // bit i: the kernel reads only the parts of input i that its other operands
  // pick (a gather's table), so input i's bytes are not part of the call's
  // cost (OpDef::gathered_mask).
  uint64_t gathered = 0;
};

namespace builtin {
// A fill and a copy into `self` never read it: it may be unwritten (Empty)
// or carry an error, which their write heals.
inline constexpr BuiltinOp kFill{"Fill"};
inline constexpr BuiltinOp kFillInplace{"FillInplace", 0b1, 0b1};
inline constexpr BuiltinOp kCopy{"Copy"};
inline constexpr BuiltinOp kCopyInto{"CopyInto", 0b1, 0b1};
inline constexpr BuiltinOp kAdd{"Add"};
inline constexpr BuiltinOp kAddInplace{"AddInplace", 0b1};
inline constexpr BuiltinOp kMulScalarInplace{"MulScalarInplace", 0b1};
// The op library (docs/ops.md).
inline constexpr BuiltinOp kSub{"Sub"};
inline constexpr BuiltinOp kMul{"Mul"};
inline constexpr BuiltinOp kDiv{"Div"};
inline constexpr BuiltinOp kMaximum{"Maximum"};
inline constexpr BuiltinOp kAddScalar{"AddScalar"};
inline constexpr BuiltinOp kSubScalar{"SubScalar"};
inline constexpr BuiltinOp kMulScalar{"MulScalar"};
inline constexpr BuiltinOp kDivScalar{"DivScalar"};
inline constexpr BuiltinOp kRelu{"Relu"};
inline constexpr BuiltinOp kNeg{"Neg"};
inline constexpr BuiltinOp kExp{"Exp"};
inline constexpr BuiltinOp kLog{"Log"};
inline constexpr BuiltinOp kSigmoid{"Sigmoid"};
inline constexpr BuiltinOp kTanh{"Tanh"};
inline constexpr BuiltinOp kSqrt{"Sqrt"};
inline constexpr BuiltinOp kMatMul{"MatMul", 0, 0, /*small_runs_inline=*/false};
inline constexpr BuiltinOp kTranspose{"Transpose"};
inline constexpr BuiltinOp kSum{"Sum"};
inline constexpr BuiltinOp kMean{"Mean"};
inline constexpr BuiltinOp kMax{"Max"};
inline constexpr BuiltinOp kCast{"Cast"};
inline constexpr BuiltinOp kRandomNormal{"RandomNormal"};
inline constexpr BuiltinOp kRandomUniform{"RandomUniform"};  // random_ops.cc
// Strided views (ops/strided.h): a compact copy of a view, and a write of
// a compact tensor into a view's elements (input 0: the view's byte span).
inline constexpr BuiltinOp kStridedCopy{"StridedCopy"};
inline constexpr BuiltinOp kStridedCopyInto{"StridedCopyInto", 0b1};
// Comparisons, selection, elementwise math (compare_ops.cc), softmax
// (softmax_ops.cc), Gelu and LayerNorm (nn_ops.cc), index ops (index_ops.cc).
inline constexpr BuiltinOp kEq{"Eq"};
inline constexpr BuiltinOp kNe{"Ne"};
inline constexpr BuiltinOp kLt{"Lt"};
inline constexpr BuiltinOp kLe{"Le"};
inline constexpr BuiltinOp kGt{"Gt"};
inline constexpr BuiltinOp kGe{"Ge"};
inline constexpr BuiltinOp kWhere{"Where"};
inline constexpr BuiltinOp kMinimum{"Minimum"};
inline constexpr BuiltinOp kAbs{"Abs"};
inline constexpr BuiltinOp kPow{"Pow"};
inline constexpr BuiltinOp kSoftmax{"Softmax"};
inline constexpr BuiltinOp kLogSoftmax{"LogSoftmax"};
inline constexpr BuiltinOp kCrossEntropy{"CrossEntropy"};
inline constexpr BuiltinOp kGelu{"Gelu"};
inline constexpr BuiltinOp kLayerNorm{"LayerNorm"};
// Backward kernels of the autograd formulas (ops/grad_ops.h): one
// instruction where the composed formula would be a dozen.
inline constexpr BuiltinOp kGeluGrad{"GeluGrad"};
inline constexpr BuiltinOp kReluGrad{"ReluGrad"};
inline constexpr BuiltinOp kLayerNormGrad{"LayerNormGrad"};
inline constexpr BuiltinOp kSoftmaxGrad{"SoftmaxGrad"};
inline constexpr BuiltinOp kCrossEntropyGrad{"CrossEntropyGrad"};
inline constexpr BuiltinOp kArgmax{"Argmax"};
inline constexpr BuiltinOp kArgmin{"Argmin"};
inline constexpr BuiltinOp kOneHot{"OneHot"};
// IndexSelect's cost is the rows it picks (its output and index), not the
// table's: a small lookup in a big table may run on the caller.
inline constexpr BuiltinOp kIndexSelect{"IndexSelect", 0, 0, true, /*gathered=*/0b1};
inline constexpr BuiltinOp kMatMulTransposed{"MatMulTransposed"};
inline constexpr BuiltinOp kMin{"Min"};                  // min_ops.cc
inline constexpr BuiltinOp kBatchMatMul{"BatchMatMul"};  // matmul_transposed_ops.cc
inline constexpr BuiltinOp kConcat{"Concat"};            // concat_ops.cc
inline constexpr BuiltinOp kSplit{"Split"};
inline constexpr BuiltinOp kSubInplace{"SubInplace", 0b1};  // inplace_arith_ops.cc
inline constexpr BuiltinOp kAxpy{"Axpy", 0b1};
inline constexpr BuiltinOp kDivScalarInplace{"DivScalarInplace", 0b1};
inline constexpr BuiltinOp kIndexAdd{"IndexAdd"};  // index_ops.cc
// One optimizer update of one parameter (optim_ops.h): param, grad[, state...].
inline constexpr BuiltinOp kSgdStep{"SgdStep", 0b1};
inline constexpr BuiltinOp kSgdMomentumStep{"SgdMomentumStep", 0b101};
inline constexpr BuiltinOp kAdamStep{"AdamStep", 0b1101};

// Every built-in op, in definition order (RegisterBuiltinOps).
inline constexpr const BuiltinOp* kAllBuiltins[] = {
    &kFill,
    &kFillInplace,
    &kCopy,
    &kCopyInto,
    &kAdd,
    &kAddInplace,
    &kMulScalarInplace,
    &kSub,
    &kMul,
    &kDiv,
    &kMaximum,
    &kAddScalar,
    &kSubScalar,
    &kMulScalar,
    &kDivScalar,
    &kRelu,
    &kNeg,
    &kExp,
    &kLog,
    &kSigmoid,
    &kTanh,
    &kSqrt,
    &kMatMul,
    &kTranspose,
    &kSum,
    &kMean,
    &kMax,
    &kCast,
    &kRandomNormal,
    &kRandomUniform,
    &kStridedCopy,
    &kStridedCopyInto,
    &kEq,
    &kNe,
    &kLt,
    &kLe,
    &kGt,
    &kGe,
    &kWhere,
    &kMinimum,
    &kAbs,
    &kPow,
    &kSoftmax,
    &kLogSoftmax,
    &kCrossEntropy,
    &kGelu,
    &kLayerNorm,
    &kGeluGrad,
    &kReluGrad,
    &kLayerNormGrad,
    &kSoftmaxGrad,
    &kCrossEntropyGrad,
    &kArgmax,
    &kArgmin,
    &kOneHot,
    &kIndexSelect,
    &kMatMulTransposed,
    &kMin,
    &kBatchMatMul,
    &kConcat,
    &kSplit,
    &kSubInplace,
    &kAxpy,
    &kDivScalarInplace,
    &kIndexAdd,
    &kSgdStep,
    &kSgdMomentumStep,
    &kAdamStep,
};

// Whether `op` is one of kAllBuiltins (EAGERVM_BUILTIN_OP checks it at
// compile time), and no two built-ins share a name. By name and index, not
// by address: GCC does not fold a comparison of two objects' addresses under
// -fsanitize=address, which would fail the static_asserts there.
constexpr bool SameName(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}
constexpr bool IsListed(const BuiltinOp& op) {
  for (const BuiltinOp* p : kAllBuiltins)
    if (SameName(p->name, op.name)) return true;
  return false;
}
constexpr bool NamesAreUnique() {
  constexpr size_t n = sizeof(kAllBuiltins) / sizeof(kAllBuiltins[0]);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (SameName(kAllBuiltins[i]->name, kAllBuiltins[j]->name)) return false;
  return true;
}
static_assert(NamesAreUnique(), "two built-in ops share a name");
}  // namespace builtin

}  // namespace eagervm::internal

// Expands to a reference to the OpDef of built-in op `builtin::k<Name>`
// (e.g. EAGERVM_BUILTIN_OP(kAdd)), resolved once per call site.
#define EAGERVM_BUILTIN_OP(constant)                                                              \
  ([]() -> const ::eagervm::internal::OpDef& {                                                    \
    static_assert(::eagervm::internal::builtin::IsListed(::eagervm::internal::builtin::constant), \
                  "not in builtin::kAllBuiltins");                                                \
    static const ::eagervm::internal::OpDef& def =                                                \
        ::eagervm::internal::OpRegistry::Get().MustFind(                                          \
            ::eagervm::internal::builtin::constant.name);                                         \
    return def;                                                                                   \
  }())

#endif  // EAGERVM_OPS_BUILTIN_H_
