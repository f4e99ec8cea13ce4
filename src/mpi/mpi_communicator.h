// The MPI transport: host-memory collectives over MPI_COMM_WORLD, and the
// bootstrap of the other transports. The only folder that includes mpi.h.
#ifndef EAGERVM_MPI_MPI_COMMUNICATOR_H_
#define EAGERVM_MPI_MPI_COMMUNICATOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "distributed/communicator.h"

namespace eagervm::mpi {

// Initialises MPI (MPI_Init_thread, MPI_THREAD_SERIALIZED: after this call
// only the CPU comm stream's worker calls MPI, and the thread that finalises
// after Sync(); calls are never concurrent, but they come from a thread that
// is not the one that initialised, which FUNNELED forbids), sets
// MPI_ERRORS_RETURN on MPI_COMM_WORLD. InitDistributed's thread, once.
// FailedPrecondition when not launched by an MPI launcher (no OMPI_/PMI_/PMIX_
// environment: a singleton MPI_Init would silently make a world of one) or
// when MPI gives a lower thread level; Unavailable when MPI_Init fails.
absl::StatusOr<std::unique_ptr<dist::Communicator>> MakeMpiCommunicator();

}  // namespace eagervm::mpi

#endif  // EAGERVM_MPI_MPI_COMMUNICATOR_H_
