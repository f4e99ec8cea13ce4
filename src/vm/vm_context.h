// VmContext: what the VM offers the code it runs and the backends it hosts
// (instruction policies, stream policies, stream-policy factories), so that
// none of them reaches for the process-wide singleton. Each VmStream carries
// the context of the VM that owns it.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_VM_CONTEXT_H_
#define EAGERVM_VM_VM_CONTEXT_H_

#include <memory>

#include "eagervm/virtual_machine.h"
#include "vm/error_record.h"

namespace eagervm::base {
class Notifier;
}
namespace eagervm::memory {
class DeviceMemoryBudget;
}

namespace eagervm::vm {

class VmContext {
 public:
  virtual ~VmContext() = default;
  // Any thread. Fixed for the VM's life.
  virtual const VmOptions& options() const = 0;
  // Any thread, never blocks for long (one short lock). Files a runtime
  // failure so that the next Sync() that has not seen it reports it.
  virtual void RecordError(const ErrorPtr& e) = 0;
  // Any thread. Notifying it makes the scheduler run a pass: for backends
  // whose completions no VM thread reports (CUDA events). Lives as long as the VM.
  virtual base::Notifier* scheduler_notifier() = 0;
  // The CPU device's memory budget, shared by the allocators of all CPU streams.
  virtual std::shared_ptr<memory::DeviceMemoryBudget> cpu_budget() const = 0;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_VM_CONTEXT_H_
