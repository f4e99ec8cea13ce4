// How the VM's options come from the environment registry.
#ifndef EAGERVM_BASE_ENV_OPTIONS_H_
#define EAGERVM_BASE_ENV_OPTIONS_H_

#include "eagervm/virtual_machine.h"

namespace eagervm::base {

// Called once, when the VM is created. Reads the environment (logging its
// warnings). Returns `*configured` when VirtualMachine::Configure() was
// called — explicit options win; each EAGERVM_* option variable they
// override is logged at info level — and VmOptions::FromEnv() otherwise.
VmOptions ResolveVmOptions(const VmOptions* configured);

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_ENV_OPTIONS_H_
