// The composition root's half for the collectives: the transports this
// build has (distributed/transports.h).
#include "distributed/transports.h"

#include "eagervm/device.h"

#ifdef EAGERVM_WITH_MPI
#include "mpi/mpi_communicator.h"
#endif
#ifdef EAGERVM_WITH_NCCL
#include "nccl/nccl_communicator.h"
#endif

namespace eagervm::dist {

absl::StatusOr<std::unique_ptr<Communicator>> MakeHostCommunicator() {
#ifdef EAGERVM_WITH_MPI
  return mpi::MakeMpiCommunicator();
#else
  return absl::UnimplementedError(
      "InitDistributed: eagervm was built without MPI (EAGERVM_MPI=OFF or no MPI found; "
      "apt install libopenmpi-dev openmpi-bin and rebuild)");
#endif
}

absl::StatusOr<std::unique_ptr<Communicator>> MakeCudaCommunicator(Communicator& host,
                                                                   int* device) {
#ifdef EAGERVM_WITH_NCCL
  const int gpus = CudaDeviceCount();
  if (gpus == 0) return absl::UnimplementedError("no GPU: no NCCL communicator");
  *device = host.rank() % gpus;
  return nccl::MakeNcclCommunicator(host, *device);
#else
  return absl::UnimplementedError("eagervm was built without NCCL");
#endif
}

}  // namespace eagervm::dist
