// The backward formulas: a registry by op name, and the helpers the
// built-in formulas share. Formulas are compositions of ordinary ops.
#ifndef EAGERVM_AUTOGRAD_GRAD_FORMULAS_H_
#define EAGERVM_AUTOGRAD_GRAD_FORMULAS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "autograd/grad_node.h"
#include "eagervm/ops.h"

namespace eagervm::internal {

using GradList = absl::StatusOr<std::vector<Tensor>>;

// Bit masks of the operands a formula reads (GradFormula::saved_*).
inline constexpr uint64_t kSaveNone = 0;
inline constexpr uint64_t kSaveAll = ~uint64_t{0};
inline constexpr uint64_t Bit(int i) { return uint64_t{1} << i; }

// Registers `fn` for op `name`; false if one is registered already.
bool DefineGradFormula(std::string_view name, autograd::BackwardFn fn,
                       uint64_t saved_inputs = kSaveAll, uint64_t saved_outputs = kSaveAll);

// The groups of built-in formulas (one file each).
void DefineElementwiseGrads();  // grad_elementwise.cc
void DefineReduceGrads();       // grad_reduce.cc
void DefineLinalgGrads();       // grad_linalg.cc: MatMul family, views, copies
void DefineNnGrads();           // grad_nn.cc: softmax family, LayerNorm, Gelu, indexing

inline int Rank(const Shape& s) { return static_cast<int>(s.end() - s.begin()); }

// `g` summed over the axes along which `shape` was broadcast to g's shape.
Tensor SumTo(const Tensor& g, const Shape& shape);
// `g` (the gradient of a reduction along `axis` of `in`; -1: all axes)
// broadcast back to `in`'s shape.
Tensor UnReduce(const Tensor& g, const TensorMeta& in, int64_t axis);
// A 0-d tensor of `value` with `like`'s dtype and device.
Tensor ScalarLike(double value, const Tensor& like);
// `cond` (kBool) as 0/1 of `like`'s dtype.
Tensor MaskLike(const Tensor& cond, const Tensor& like);

}  // namespace eagervm::internal

#endif  // EAGERVM_AUTOGRAD_GRAD_FORMULAS_H_
