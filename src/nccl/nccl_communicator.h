// The NCCL transport: collectives on one CUDA device's tensors, enqueued on
// the device's communication stream (no host wait: the engine orders them
// against other CUDA streams with events, like any cross-stream edge).
#ifndef EAGERVM_NCCL_NCCL_COMMUNICATOR_H_
#define EAGERVM_NCCL_NCCL_COMMUNICATOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "distributed/communicator.h"

namespace eagervm::nccl {

// Collective over all ranks of `host`: rank 0 makes an ncclUniqueId, `host`
// broadcasts it, every rank joins with ncclCommInitRank on CUDA device
// `device`. InitDistributed's thread (the only MPI caller at that time).
absl::StatusOr<std::unique_ptr<dist::Communicator>> MakeNcclCommunicator(dist::Communicator& host,
                                                                         int device);

}  // namespace eagervm::nccl

#endif  // EAGERVM_NCCL_NCCL_COMMUNICATOR_H_
