// The CUDA kernels' one entry point: registers the CUDA kernel of every
// built-in op that has one. Called once, by the composition root
// (src/runtime/kernels.cc, from OpRegistry creation), only in builds with the
// CUDA backend; nothing else calls it. Defined in math_kernels.cc.
#ifndef EAGERVM_KERNELS_CUDA_REGISTER_H_
#define EAGERVM_KERNELS_CUDA_REGISTER_H_

#include "ops/op_registry.h"

namespace eagervm::kernels::cuda_impl {

// `registry` already holds the built-in op definitions.
void RegisterCudaKernels(internal::OpRegistry& registry);

}  // namespace eagervm::kernels::cuda_impl

#endif  // EAGERVM_KERNELS_CUDA_REGISTER_H_
