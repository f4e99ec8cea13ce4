// How the VM's options come from the environment registry.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_VM_OPTIONS_ENV_H_
#define EAGERVM_VM_LIFECYCLE_VM_OPTIONS_ENV_H_

#include "eagervm/virtual_machine.h"

namespace eagervm::vm {

// Called once, when the VM is created. Reads the environment (logging its
// warnings). Returns `*configured` when VirtualMachine::Configure() was
// called — explicit options win; each EAGERVM_* option variable they
// override is logged at info level — and VmOptions::FromEnv() otherwise.
VmOptions ResolveVmOptions(const VmOptions* configured);

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_VM_OPTIONS_ENV_H_
