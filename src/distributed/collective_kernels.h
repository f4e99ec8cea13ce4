// The collective ops' definitions and kernels (CPU and CUDA: one kernel per
// device type that hands the buffers to that device's Communicator).
#ifndef EAGERVM_DISTRIBUTED_COLLECTIVE_KERNELS_H_
#define EAGERVM_DISTRIBUTED_COLLECTIVE_KERNELS_H_

#include "ops/op_registry.h"

namespace eagervm::dist {

// Op names; every op's last input is its device's ordering token
// (ProcessGroup::Token), declared written.
inline constexpr char kAllReduce[] = "AllReduce";  // (x, token) -> out; scalar 0: ReduceOp
inline constexpr char kAllReduceInplace[] = "AllReduceInplace";  // (x, token)
inline constexpr char kBroadcast[] = "Broadcast";          // (x, token) -> out; scalar 0: root
inline constexpr char kAllGather[] = "AllGather";          // (x, token) -> out
inline constexpr char kReduceScatter[] = "ReduceScatter";  // (x, token) -> out; scalar 0: ReduceOp
inline constexpr char kSend[] = "Send";                    // (x, token); scalar 0: peer
inline constexpr char kRecv[] = "Recv";                    // (token) -> out; scalar 0: peer

// Defines the ops and registers their kernels. Called once, by the
// composition root (runtime/kernels.cc, InstallKernels).
void RegisterCollectiveOps(internal::OpRegistry& registry);

}  // namespace eagervm::dist

#endif  // EAGERVM_DISTRIBUTED_COLLECTIVE_KERNELS_H_
