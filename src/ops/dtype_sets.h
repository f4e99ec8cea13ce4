// The dtype sets op families accept, in one place for the op checks and both
// kernel folders: what CheckNumeric/CheckFloating (ops/op_checks.h) let
// through is what RegisterCpu/RegisterCuda register kernels for. Constants:
// any thread.
#ifndef EAGERVM_OPS_DTYPE_SETS_H_
#define EAGERVM_OPS_DTYPE_SETS_H_

#include <initializer_list>

#include "eagervm/dtype.h"

namespace eagervm::internal {

// Every dtype.
inline constexpr std::initializer_list<DType> kAllDTypes = {
    DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};
// Arithmetic: every dtype but bool (CheckNumeric).
inline constexpr std::initializer_list<DType> kNumericDTypes = {DType::kInt32, DType::kInt64,
                                                                DType::kFloat32, DType::kFloat64};
// Floating point (CheckFloating, IsFloating).
inline constexpr std::initializer_list<DType> kFloatDTypes = {DType::kFloat32, DType::kFloat64};

constexpr bool InDTypeSet(std::initializer_list<DType> set, DType d) {
  for (DType x : set) {
    if (x == d) return true;
  }
  return false;
}

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_DTYPE_SETS_H_
