// The CPU kernels' one entry point: registers the CPU kernel of every
// built-in op, for each dtype it supports. Called once, by the composition
// root (src/runtime/kernels.cc, from OpRegistry creation); nothing else calls it.
#ifndef EAGERVM_KERNELS_CPU_REGISTER_H_
#define EAGERVM_KERNELS_CPU_REGISTER_H_

#include "ops/op_registry.h"

namespace eagervm::kernels {

// `registry` already holds the built-in op definitions. Not thread-safe
// against other registrations of the same ops.
void RegisterCpuKernels(internal::OpRegistry& registry);

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_REGISTER_H_
