// EAGERVM_TRACE's whole-run trace (profiler/env_trace.h).
#include "profiler/env_trace.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <variant>

#include "base/env_registry.h"
#include "base/log.h"
#include "profiler/chrome_trace_writer.h"
#include "profiler/tracer.h"

namespace eagervm::profiler {
namespace {
// Set once at VM creation; read at shutdown, possibly on another thread.
std::atomic<bool> env_trace_started{false};

// The profiler's table of the environment registry (base/env_registry.h).
const base::EnvVar kTraceVar = {
    "EAGERVM_TRACE", base::EnvType::kString, "",
    "Trace the whole run to this Chrome/Perfetto JSON file, written at `Shutdown()` or exit "
    "(docs/tracing.md)."};
const base::EnvVarsRegistration kTraceEnvVars(/*doc_rank=*/1, {&kTraceVar});

// EAGERVM_TRACE's value; empty when unset.
const std::string& TracePath() {
  static const std::string empty;
  const base::EnvValue* v = base::ProcessEnv().Find(kTraceVar);
  return v != nullptr ? std::get<std::string>(*v) : empty;
}
}  // namespace

void StartEnvTrace() {
  const std::string& path = TracePath();
  if (path.empty()) return;
  // The file is written at the end of the run; a path that cannot be written
  // (no such folder, no permission) is said now, not after the whole run.
  // Opened for append, so an existing file is not truncated until then.
  if (std::FILE* f = std::fopen(path.c_str(), "ab"); f == nullptr) {
    EAGERVM_LOG(kWarning, "EAGERVM_TRACE=", path, ": cannot open it for writing (",
                std::strerror(errno), "); the run goes on without a trace");
    return;
  } else {
    std::fclose(f);
  }
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
  const std::string& path = TracePath();
  ChromeTraceWriter writer(path);
  absl::Status s = StopSession(&writer);
  if (!s.ok()) {
    EAGERVM_LOG(kError, "EAGERVM_TRACE: ", s.message());
  } else {
    EAGERVM_LOG(kInfo, "wrote the trace of this run to ", path, " (EAGERVM_TRACE)");
  }
}

}  // namespace eagervm::profiler
