#include "interop/dlpack_dtype.h"

namespace eagervm::interop {
namespace {

struct Row {
  DType dtype;
  uint8_t code;
  uint8_t bits;
};

// The first row of a dtype is what export writes; import takes the first row
// of a (code, bits): {kDLUInt, 8} is uint8, and bool comes in as kDLBool.
constexpr Row kTable[] = {
    {DType::kUInt8, kDLUInt, 8},       {DType::kBool, kDLUInt, 8},
    {DType::kBool, kDLBoolCode, 8},    {DType::kInt32, kDLInt, 32},
    {DType::kInt64, kDLInt, 64},       {DType::kFloat16, kDLFloat, 16},
    {DType::kBFloat16, kDLBfloat, 16}, {DType::kFloat32, kDLFloat, 32},
    {DType::kFloat64, kDLFloat, 64},
};

}  // namespace

DLDataType ToDLDataType(DType d) {
  for (const Row& r : kTable) {
    if (r.dtype == d) return DLDataType{r.code, r.bits, 1};
  }
  return DLDataType{kDLOpaqueHandle, 0, 0};  // unreachable: every DType has a row
}

std::optional<DType> FromDLDataType(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  for (const Row& r : kTable) {
    if (r.code == t.code && r.bits == t.bits) return r.dtype;
  }
  return std::nullopt;
}

}  // namespace eagervm::interop
