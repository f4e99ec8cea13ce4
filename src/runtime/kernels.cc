// The composition root's half for the ops: the kernels of every backend this
// build has, registered for the built-in ops (docs/architecture.md, "Layers").
#include "distributed/collective_kernels.h"
#include "kernels/cpu/register.h"
#include "ops/op_registry.h"

#ifdef EAGERVM_WITH_CUDA
#include "kernels/cuda/register.h"
#endif

namespace eagervm::internal {

void InstallKernels(OpRegistry& registry) {
  kernels::RegisterCpuKernels(registry);
  dist::RegisterCollectiveOps(registry);  // CPU and CUDA kernels over dist::Communicator
#ifdef EAGERVM_WITH_CUDA
  kernels::cuda_impl::RegisterCudaKernels(registry);
#endif
}

}  // namespace eagervm::internal
