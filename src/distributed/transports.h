// THE SEAM between the distributed front end and the transports. Declared
// here, defined by the composition root (src/runtime/transports.cc), which
// knows which transports this build has (src/mpi/, src/nccl/); the front end
// never names one. Ordinary functions the front end references, so a static
// link always pulls them in.
#ifndef EAGERVM_DISTRIBUTED_TRANSPORTS_H_
#define EAGERVM_DISTRIBUTED_TRANSPORTS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "distributed/communicator.h"

namespace eagervm::dist {

// Joins the job (MPI_Init_thread): the host communicator over all ranks.
// Unimplemented without MPI. InitDistributed's thread, once.
absl::StatusOr<std::unique_ptr<Communicator>> MakeHostCommunicator();
// The communicator of this rank's CUDA device over all ranks, bootstrapped
// over `host` (collective: every rank calls it), and that device in *device:
// cuda:(rank % CudaDeviceCount()), one process per GPU. Unimplemented without
// NCCL or without a GPU (every rank must see GPUs, or none).
absl::StatusOr<std::unique_ptr<Communicator>> MakeCudaCommunicator(Communicator& host, int* device);

}  // namespace eagervm::dist

#endif  // EAGERVM_DISTRIBUTED_TRANSPORTS_H_
