// The VM's table of the environment registry (base/env_registry.h): one
// EAGERVM_* variable per VmOptions field, and how each sets its field.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_LIFECYCLE_VM_OPTIONS_ENV_H_
#define EAGERVM_VM_LIFECYCLE_VM_OPTIONS_ENV_H_

#include "base/env_registry.h"
#include "eagervm/virtual_machine.h"

namespace eagervm::vm {

// Called once, when the VM is created. Reads the environment (logging its
// warnings). Returns `*configured` when VirtualMachine::Configure() was
// called — explicit options win; each EAGERVM_* option variable they
// override is logged at info level — and VmOptions::FromEnv() otherwise.
VmOptions ResolveVmOptions(const VmOptions* configured);

// VmOptions{} with the VM's variables set in `env` applied. Any thread.
VmOptions VmOptionsFromEnv(const base::ParsedEnv& env);
// Sets the field of `var` in `options` to `value`; false (nothing set) if
// `var` is not one of the VM's variables. Any thread.
bool ApplyVmEnvVar(const base::EnvVar& var, const base::EnvValue& value, VmOptions* options);

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_LIFECYCLE_VM_OPTIONS_ENV_H_
