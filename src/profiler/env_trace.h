// EAGERVM_TRACE=path.json: a trace of the whole run, started when the VM is
// created and written when it shuts down (explicitly or at exit).
#ifndef EAGERVM_PROFILER_ENV_TRACE_H_
#define EAGERVM_PROFILER_ENV_TRACE_H_

namespace eagervm::profiler {

// VM creation: starts a session if EAGERVM_TRACE is set.
void StartEnvTrace();
// VM shutdown, after its threads are joined: writes that session's file, if
// it is still recording (a StopTrace() in between ends it early). Failures
// are logged: there is no caller to return them to at exit.
void FinishEnvTrace();

}  // namespace eagervm::profiler

#endif  // EAGERVM_PROFILER_ENV_TRACE_H_
