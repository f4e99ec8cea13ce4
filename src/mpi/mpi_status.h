// MPI return codes and types, as eagervm values.
#ifndef EAGERVM_MPI_MPI_STATUS_H_
#define EAGERVM_MPI_MPI_STATUS_H_

#include <mpi.h>

#include "absl/status/status.h"
#include "eagervm/distributed.h"
#include "eagervm/dtype.h"

namespace eagervm::mpi {

// OK for MPI_SUCCESS; else Unavailable "<call>: <MPI's error string>" (with
// MPI_ERRORS_RETURN a failed peer or transport shows up here).
absl::Status FromMpi(int rc, const char* call);
MPI_Datatype TypeOf(DType dtype);

// Returns FromMpi(rc, call) from the enclosing function unless it is OK.
#define EAGERVM_RETURN_IF_MPI_(expr, call)                                                     \
  do {                                                                                         \
    if (::absl::Status mpi_status_ = ::eagervm::mpi::FromMpi((expr), call); !mpi_status_.ok()) \
      return mpi_status_;                                                                      \
  } while (0)
// MPI_SUM/MAX/MIN; on bool kMax is MPI_LOR and kMin MPI_LAND (MPI defines
// only logical ops on MPI_C_BOOL). MPI_OP_NULL where undefined (bool sum).
MPI_Op OpOf(ReduceOp op, DType dtype);

}  // namespace eagervm::mpi

#endif  // EAGERVM_MPI_MPI_STATUS_H_
