// DType <-> DLDataType, both directions in one table (docs/interop.md).
// Pure functions: any thread.
#ifndef EAGERVM_INTEROP_DLPACK_DTYPE_H_
#define EAGERVM_INTEROP_DLPACK_DTYPE_H_

#include <optional>

#include "eagervm/dtype.h"
#include "interop/dlpack_abi.h"

namespace eagervm::interop {

// What ToDLPack writes. bool becomes {kDLUInt, 8, 1}: DLPack 0.6 has no bool
// code, and that is what libtorch 1.13 and NumPy write for bool too.
DLDataType ToDLDataType(DType d);
// What FromDLPack accepts; nullopt for anything else (lanes != 1 included).
// {kDLUInt, 8, 1} and {kDLBool, 8, 1} become bool: eagervm has no uint8, so an
// 8-bit unsigned tensor is taken as bool (its bytes must be 0 or 1).
std::optional<DType> FromDLDataType(DLDataType t);

}  // namespace eagervm::interop

#endif  // EAGERVM_INTEROP_DLPACK_DTYPE_H_
