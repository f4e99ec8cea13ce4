#include "vm/lifecycle/vm_options_env.h"

#include <sstream>
#include <string>

#include "base/env_registry.h"
#include "base/log.h"

namespace eagervm {
namespace vm {
namespace {
std::string Print(const VmOptions& o) {
  std::ostringstream s;
  s << o;
  return s.str();
}
}  // namespace

VmOptions ResolveVmOptions(const VmOptions* configured) {
  const base::ParsedEnv& env = base::ProcessEnv();
  if (configured == nullptr) return env.options;
  for (const auto& [var, value] : env.applied) {
    VmOptions with_env = *configured;
    var->apply(value, &with_env);
    if (Print(with_env) != Print(*configured)) {
      EAGERVM_LOG(kInfo, var->name,
                  " is overridden by the options given to VirtualMachine::Configure() (start "
                  "from VmOptions::FromEnv() to keep environment defaults)");
    }
  }
  return *configured;
}

}  // namespace vm

VmOptions VmOptions::FromEnv() { return base::ProcessEnv().options; }

}  // namespace eagervm
