// The public trace API (eagervm/trace.h): sessions of the profiler, fenced by
// the VM (a VM layer file: the profiler knows no VM). EAGERVM_TRACE's
// whole-run trace is profiler/env_trace.cc.
#include <string>

#include "base/thread_role.h"
#include "eagervm/trace.h"
#include "eagervm/virtual_machine.h"
#include "profiler/chrome_trace_writer.h"
#include "profiler/tracer.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm {

absl::Status StartTrace() {
  // StopTrace waits for open compute slices while holding the session lock,
  // so a kernel must not wait for that lock.
  if (base::OnVmThread()) {
    return absl::FailedPreconditionError(
        "StartTrace() was called on an eagervm VM thread (inside a kernel or callback); "
        "start and stop traces from user threads");
  }
  VirtualMachine& vm = VirtualMachine::Get();  // creates the VM: its threads get rows
  if (vm.IsShutDown()) {
    return absl::FailedPreconditionError("StartTrace(): the eagervm VM has been shut down");
  }
  return profiler::StartSession();
}

absl::Status StopTrace(const std::string& path) {
  if (!profiler::SessionActive()) {
    return absl::FailedPreconditionError("StopTrace(): no trace is being recorded");
  }
  VirtualMachine& vm = VirtualMachine::Get();
  if (!vm.IsShutDown()) {
    absl::Status s = vm::CheckMayBlock("StopTrace");
    if (s.ok()) s = vm::ProcessVm().WaitAll();
    if (!s.ok() && !vm.IsShutDown()) return s;
  }
  profiler::ChromeTraceWriter writer(path);
  return profiler::StopSession(&writer);
}

bool IsTracing() { return profiler::SessionActive(); }

}  // namespace eagervm
