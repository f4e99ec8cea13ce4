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
// uint8 is {kDLUInt, 8, 1} too, float16 {kDLFloat, 16, 1}, bfloat16
// {kDLBfloat, 16, 1}.
// What FromDLPack accepts; nullopt for anything else (lanes != 1 included).
// {kDLUInt, 8, 1} becomes uint8 (so a bool exported to DLPack comes back as
// uint8) and {kDLBool, 8, 1} bool.
std::optional<DType> FromDLDataType(DLDataType t);

}  // namespace eagervm::interop

#endif  // EAGERVM_INTEROP_DLPACK_DTYPE_H_
