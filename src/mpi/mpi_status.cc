#include "mpi/mpi_status.h"

#include "base/str_cat.h"

namespace eagervm::mpi {

absl::Status FromMpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  return absl::UnavailableError(
      base::Cat(call, " failed (MPI error ", rc, "): ", std::string_view(text, len)));
}

MPI_Datatype TypeOf(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return MPI_C_BOOL;
    case DType::kInt32:
      return MPI_INT32_T;
    case DType::kInt64:
      return MPI_INT64_T;
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
    case DType::kUInt8:
      return MPI_UINT8_T;
    case DType::kFloat16:
    case DType::kBFloat16:
      return MPI_UINT16_T;  // moved as 16-bit words; reductions refused (OpOf)
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op OpOf(ReduceOp op, DType dtype) {
  if (dtype == DType::kBool) {
    if (op == ReduceOp::kMax) return MPI_LOR;
    if (op == ReduceOp::kMin) return MPI_LAND;
    return MPI_OP_NULL;
  }
  if (IsHalfFloat(dtype)) return MPI_OP_NULL;  // MPI has no 16-bit float arithmetic
  switch (op) {
    case ReduceOp::kSum:
      return MPI_SUM;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kMin:
      return MPI_MIN;
  }
  return MPI_OP_NULL;
}

}  // namespace eagervm::mpi
