// Communicator: one transport's collectives over a fixed group of ranks (MPI
// for host memory, NCCL for one CUDA device). The collective kernels call it;
// the composition root makes the implementations (distributed/transports.h).
#ifndef EAGERVM_DISTRIBUTED_COMMUNICATOR_H_
#define EAGERVM_DISTRIBUTED_COMMUNICATOR_H_

#include <cstdint>

#include "absl/status/status.h"
#include "eagervm/distributed.h"
#include "eagervm/dtype.h"

namespace eagervm::dist {

// Every method: called on the communication stream's thread only (one
// thread at a time: the MPI thread level is SERIALIZED), in the order the
// ranks agreed on. `stream` is the device stream to enqueue on (a
// cudaStream_t for NCCL; nullptr for MPI, whose calls block until done).
// Counts are elements of `dtype`; buffers hold that many (send/recv may be
// null when the count is 0). Errors are the transport's, as a status.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Whether the transport reduces `dtype` with `op` (the front end asks).
  virtual bool Reduces(DType dtype, ReduceOp op) const = 0;

  // recv = op over ranks of send; send == recv means in place.
  virtual absl::Status AllReduce(const void* send, void* recv, int64_t count, DType dtype,
                                 ReduceOp op, void* stream) = 0;
  // recv = root's send (send is read on the root only).
  virtual absl::Status Broadcast(const void* send, void* recv, int64_t count, DType dtype, int root,
                                 void* stream) = 0;
  // recv (size() * count) = every rank's send (count), in rank order.
  virtual absl::Status AllGather(const void* send, void* recv, int64_t count, DType dtype,
                                 void* stream) = 0;
  // recv (count) = this rank's block of op over ranks of send (size() * count).
  virtual absl::Status ReduceScatter(const void* send, void* recv, int64_t count, DType dtype,
                                     ReduceOp op, void* stream) = 0;
  virtual absl::Status Send(const void* send, int64_t count, DType dtype, int peer,
                            void* stream) = 0;
  virtual absl::Status Recv(void* recv, int64_t count, DType dtype, int peer, void* stream) = 0;

  // Host bytes from `root` to every rank, blocking (bootstrap of other
  // transports: the NCCL unique id). Host communicators only; the caller's
  // thread must be the only one using MPI at the time.
  virtual absl::Status BroadcastBytes(void* data, int64_t bytes, int root) {
    return absl::UnimplementedError("this communicator cannot bootstrap others");
  }
  // Releases the transport (MPI_Finalize). No call may follow.
  virtual absl::Status Finalize() { return absl::OkStatus(); }
};

}  // namespace eagervm::dist

#endif  // EAGERVM_DISTRIBUTED_COMMUNICATOR_H_
