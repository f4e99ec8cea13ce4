// Collectives across processes: MPI for CPU tensors, NCCL for CUDA tensors
// (docs/distributed.md has the ordering rules, the thread level and the
// failure model).
//
// Every collective is an ordinary VM instruction: it reads and writes the
// tensors it names, is ordered against compute on other streams by those
// accesses, and carries its runtime errors as data. All collectives of one
// device run on that device's communication stream, in the order this
// process submitted them. Every rank must therefore submit the same
// collectives (same kind, dtype, element count, root/peer pairing, device
// type) in the same order; the VM keeps that order per rank, so ranks that
// submit in the same order never deadlock against each other.
//
// The library builds and runs without MPI (EAGERVM_HAS_MPI in
// eagervm/distributed_config.h is 0): InitDistributed() then returns
// Unimplemented and every collective fails with FailedPrecondition.
#ifndef EAGERVM_DISTRIBUTED_H_
#define EAGERVM_DISTRIBUTED_H_

#include "absl/status/status.h"
#include "eagervm/distributed_config.h"
#include "eagervm/export.h"
#include "eagervm/tensor.h"

namespace eagervm {

enum class ReduceOp { kSum, kMax, kMin };

// Joins the job this process was launched in (mpirun / srun): initialises MPI
// with MPI_THREAD_SERIALIZED, reads the rank and the world size, sets MPI's
// error handler to return errors, and, with NCCL and a GPU, creates the NCCL
// communicator of cuda:(rank % CudaDeviceCount()). Blocks (collectively: every
// rank must call it). Call once, from one user thread, before any collective;
// a second call returns OK without doing anything.
// Errors: Unimplemented (built without MPI), FailedPrecondition (not launched
// by an MPI launcher, or MPI cannot give MPI_THREAD_SERIALIZED), Unavailable
// (MPI or NCCL initialisation failed). MPI is finalised at exit, after the VM
// has drained (or by FinalizeDistributed()).
[[nodiscard]] EAGERVM_EXPORT absl::Status InitDistributed();
// Drains the VM (Sync()) and finalises MPI; afterwards collectives fail with
// FailedPrecondition and InitDistributed() cannot be called again (MPI allows
// one initialisation per process). Blocks. Optional: exit does it. Returns
// the drain's error, if any.
[[nodiscard]] EAGERVM_EXPORT absl::Status FinalizeDistributed();
// Any thread, never block. Before InitDistributed (or without MPI): false,
// rank 0, world size 1.
EAGERVM_EXPORT bool IsDistributed();
EAGERVM_EXPORT int Rank();
EAGERVM_EXPORT int WorldSize();

namespace ops {

// All of these: any user thread, never block (they queue one instruction on
// the communication stream of x's device). Bad input (not initialised, error
// or undefined tensor, root/peer out of range, a dim-0 size that does not
// split, a dtype the transport cannot reduce) is rejected before anything is
// queued, naming the op and shapes. Shapes that differ *between* ranks cannot
// be seen locally: that is the caller's contract (above). Inside
// Graph::Capture they are rejected (FailedPrecondition).

// The element-wise reduction of x over all ranks, on every rank. Bool takes
// kMax (or) and kMin (and) only.
EAGERVM_EXPORT Tensor AllReduce(const Tensor& x, ReduceOp op = ReduceOp::kSum);
// The same, written into x.
[[nodiscard]] EAGERVM_EXPORT absl::Status AllReduceInplace(const Tensor& x,
                                                           ReduceOp op = ReduceOp::kSum);
// Root's x on every rank (every rank passes a tensor of the same meta).
EAGERVM_EXPORT Tensor Broadcast(const Tensor& x, int root);
// Every rank's x (same meta on all ranks) concatenated along dim 0 in rank
// order: shape {WorldSize() * x.size(0), ...}. x must have at least one dim.
EAGERVM_EXPORT Tensor AllGather(const Tensor& x);
// The reduction of x over all ranks, split evenly along dim 0: rank r gets
// rows [r * n / WorldSize(), (r + 1) * n / WorldSize()). n must divide.
EAGERVM_EXPORT Tensor ReduceScatter(const Tensor& x, ReduceOp op = ReduceOp::kSum);
// Sends x to rank `peer` (!= Rank()), which must post a matching Recv. The
// send may complete only when the peer receives (large messages), so two
// ranks that both Send before they Recv may deadlock: pair them (even ranks
// send first). The returned status is the rejection only; a transport error
// surfaces at the next Sync().
[[nodiscard]] EAGERVM_EXPORT absl::Status Send(const Tensor& x, int peer);
// A tensor of `meta` received from rank `peer` (which Sends one of that meta).
EAGERVM_EXPORT Tensor Recv(const TensorMeta& meta, int peer);

}  // namespace ops
}  // namespace eagervm

#endif  // EAGERVM_DISTRIBUTED_H_
