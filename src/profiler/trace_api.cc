// The public trace API, and EAGERVM_TRACE's whole-run trace.
#include <atomic>
#include <string>

#include "eagervm/trace.h"
#include "base/env_registry.h"
#include "base/log.h"
#include "base/thread_role.h"
#include "eagervm/virtual_machine.h"
#include "profiler/chrome_trace_writer.h"
#include "profiler/env_trace.h"
#include "profiler/tracer.h"
#include "vm/process_vm.h"
#include "vm/vm_impl.h"

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
  if (vm.is_shut_down()) {
    return absl::FailedPreconditionError("StartTrace(): the eagervm VM has been shut down");
  }
  return profiler::StartSession();
}

absl::Status StopTrace(const std::string& path) {
  if (!profiler::SessionActive()) {
    return absl::FailedPreconditionError("StopTrace(): no trace is being recorded");
  }
  VirtualMachine& vm = VirtualMachine::Get();
  if (!vm.is_shut_down()) {
    absl::Status s = vm::CheckMayBlock("StopTrace");
    if (s.ok()) s = vm::ProcessVm().WaitAll();
    if (!s.ok() && !vm.is_shut_down()) return s;
  }
  profiler::ChromeTraceWriter writer(path);
  return profiler::StopSession(&writer);
}

bool IsTracing() { return profiler::SessionActive(); }

}  // namespace eagervm

namespace eagervm::profiler {
namespace {
// Set once at VM creation; read at shutdown, possibly on another thread.
std::atomic<bool> env_trace_started{false};
}  // namespace

void StartEnvTrace() {
  const std::string& path = base::ProcessEnv().trace_path;
  if (path.empty()) return;
  absl::Status s = StartSession();
  if (!s.ok()) {
    EAGERVM_LOG(kWarning, "EAGERVM_TRACE=", path, ": ", s.message());
    return;
  }
  env_trace_started.store(true, std::memory_order_release);
  EAGERVM_LOG(kInfo, "tracing the whole run to ", path, " (EAGERVM_TRACE)");
}

void FinishEnvTrace() {
  if (!env_trace_started.load(std::memory_order_acquire) || !SessionActive()) return;
  const std::string& path = base::ProcessEnv().trace_path;
  ChromeTraceWriter writer(path);
  absl::Status s = StopSession(&writer);
  if (!s.ok()) {
    EAGERVM_LOG(kError, "EAGERVM_TRACE: ", s.message());
  } else {
    EAGERVM_LOG(kInfo, "wrote the trace of this run to ", path, " (EAGERVM_TRACE)");
  }
}

}  // namespace eagervm::profiler
