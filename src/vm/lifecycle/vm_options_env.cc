#include "vm/lifecycle/vm_options_env.h"

#include <sstream>
#include <string>
#include <variant>

#include "base/log.h"

namespace eagervm {
namespace vm {
namespace {

int64_t AsInt(const base::EnvValue& v) { return std::get<int64_t>(v); }
bool AsBool(const base::EnvValue& v) { return std::get<bool>(v); }

struct VmEnvVar {
  base::EnvVar var;
  void (*apply)(const base::EnvValue& value, VmOptions* options);
};

// The table. To add a variable: add a VmOptions field (with its default), a
// row here whose default_text parses to that default, and regenerate the
// table in docs/env.md (env_test prints it when they differ).
const VmEnvVar kVmVars[] = {
    {{"EAGERVM_CPU_STREAMS", base::EnvType::kInt, "2",
      "Compute streams (and worker threads) on the CPU; `Stream(Device::Cpu(), i)` needs "
      "`i` below it.",
      1, 64},
     [](const base::EnvValue& v, VmOptions* o) { o->cpu_streams = static_cast<int>(AsInt(v)); }},
    {{"EAGERVM_COMPUTE_ON_SCHEDULER_THREAD", base::EnvType::kBool, "false",
      "Run CPU kernels on the scheduler thread (no hand-off per op, no stream parallelism).", 0, 1},
     [](const base::EnvValue& v, VmOptions* o) { o->compute_on_scheduler_thread = AsBool(v); }},
    {{"EAGERVM_INLINE_MAX_BYTES", base::EnvType::kByteSize, "16KiB",
      "Small CPU op calls (operands up to this many bytes, of ops that allow it) run on the "
      "scheduler thread when their stream is idle, skipping the handoff to its worker (`0`: "
      "never).",
      0, INT64_MAX},
     [](const base::EnvValue& v, VmOptions* o) { o->inline_max_bytes = AsInt(v); }},
    {{"EAGERVM_DONATE_MAX_BYTES", base::EnvType::kByteSize, "1MiB",
      "Op calls and releases (operands up to this many bytes) made while nothing is in flight "
      "run on the calling thread instead of being queued (`0`: always queue).",
      0, INT64_MAX},
     [](const base::EnvValue& v, VmOptions* o) { o->donate_max_bytes = AsInt(v); }},
    {{"EAGERVM_HANDOFF_MIN_GAP_US", base::EnvType::kInt, "200",
      "An op above EAGERVM_DONATE_MAX_BYTES made while nothing is in flight is handed to a "
      "worker while the caller, after such a handoff, computes for at least this many "
      "microseconds of its CPU time before its next call (work to overlap with it); otherwise "
      "the next ones run on the caller (`0`: always hand off).",
      0, 1'000'000'000},
     [](const base::EnvValue& v, VmOptions* o) { o->handoff_min_gap_us = AsInt(v); }},
    {{"EAGERVM_RUN_AHEAD_MAX_BYTES", base::EnvType::kByteSize, "256KiB",
      "Bounded run-ahead: a thread whose queued ops are estimated to cost more than this "
      "(operand bytes plus 4KiB per op) since it last found the VM idle yields until the VM "
      "catches up (`0`: unbounded).",
      0, INT64_MAX},
     [](const base::EnvValue& v, VmOptions* o) { o->run_ahead_max_bytes = AsInt(v); }},
    {{"EAGERVM_SYNCHRONOUS", base::EnvType::kBool, "false",
      "Deterministic debugging mode: no VM threads; each submission runs on the calling thread "
      "before it returns.",
      0, 1},
     [](const base::EnvValue& v, VmOptions* o) { o->synchronous = AsBool(v); }},
    {{"EAGERVM_MAX_IN_FLIGHT", base::EnvType::kInt, "65536",
      "Back-pressure: a submitting thread blocks while more instructions than this are in "
      "flight, until half have finished.",
      2, INT64_MAX},
     [](const base::EnvValue& v, VmOptions* o) { o->max_in_flight = AsInt(v); }},
    {{"EAGERVM_SPIN_US", base::EnvType::kInt, "100",
      "Microseconds VM threads spin for more work before they park (0: park at once).", 0,
      1'000'000},
     [](const base::EnvValue& v, VmOptions* o) { o->spin_us = AsInt(v); }},
    {{"EAGERVM_CPU_MEMORY_LIMIT", base::EnvType::kByteSize, "0",
      "Bytes the CPU allocators may hold from the system, all CPU streams together "
      "(`0`: unlimited).",
      0, INT64_MAX},
     [](const base::EnvValue& v, VmOptions* o) { o->cpu_memory_limit = AsInt(v); }},
    {{"EAGERVM_CUDA_MEMORY_LIMIT", base::EnvType::kByteSize, "0",
      "Bytes of live tensors per CUDA device (`0`: the device's memory).", 0, INT64_MAX},
     [](const base::EnvValue& v, VmOptions* o) { o->cuda_memory_limit = AsInt(v); }},
    {{"EAGERVM_OOM_WAIT_MS", base::EnvType::kInt, "250",
      "Out of memory: how long an allocation waits for other streams to free memory before it "
      "fails with `RESOURCE_EXHAUSTED`.",
      0, 3'600'000},
     [](const base::EnvValue& v, VmOptions* o) { o->oom_wait_ms = AsInt(v); }},
    {{"EAGERVM_HANG_TIMEOUT_MS", base::EnvType::kInt, "0",
      "Hang diagnostics: a blocking call that sees no instruction finish for this long returns "
      "`DEADLINE_EXCEEDED` and logs what the VM is doing (`0`: wait forever).",
      0, 86'400'000},
     [](const base::EnvValue& v, VmOptions* o) { o->hang_timeout_ms = AsInt(v); }},
    {{"EAGERVM_COLLECTIVES_ON_CALLER", base::EnvType::kBool, "false",
      "A CPU collective submitted to an idle VM runs on the submitting thread, which blocks "
      "until it is done (lower latency; collectives otherwise never block).",
      0, 1},
     [](const base::EnvValue& v, VmOptions* o) { o->collectives_on_caller = AsBool(v); }},
    {{"EAGERVM_STRICT_DTYPES", base::EnvType::kBool, "false",
      "A binary op on two dtypes is `INVALID_ARGUMENT` naming both instead of computing in "
      "their promoted dtype (docs/ops.md, \"Dtype promotion\").",
      0, 1},
     [](const base::EnvValue& v, VmOptions* o) { o->strict_dtypes = AsBool(v); }},
};

std::vector<const base::EnvVar*> Rows() {
  std::vector<const base::EnvVar*> rows;
  for (const VmEnvVar& v : kVmVars) rows.push_back(&v.var);
  return rows;
}
// First in docs/env.md, before the profiler's and base's process settings.
const base::EnvVarsRegistration kVmOptionsEnvVars(/*doc_rank=*/0, Rows());

std::string Print(const VmOptions& o) {
  std::ostringstream s;
  s << o;
  return s.str();
}
}  // namespace

bool ApplyVmEnvVar(const base::EnvVar& var, const base::EnvValue& value, VmOptions* options) {
  for (const VmEnvVar& v : kVmVars) {
    if (&v.var == &var) {
      v.apply(value, options);
      return true;
    }
  }
  return false;
}

VmOptions VmOptionsFromEnv(const base::ParsedEnv& env) {
  VmOptions options;
  for (const auto& [var, value] : env.values) (void)ApplyVmEnvVar(*var, value, &options);
  return options;
}

VmOptions ResolveVmOptions(const VmOptions* configured) {
  const base::ParsedEnv& env = base::ProcessEnv();
  if (configured == nullptr) return VmOptionsFromEnv(env);
  for (const auto& [var, value] : env.values) {
    VmOptions with_env = *configured;
    if (!ApplyVmEnvVar(*var, value, &with_env)) continue;
    if (Print(with_env) != Print(*configured)) {
      EAGERVM_LOG(kInfo, var->name,
                  " is overridden by the options given to VirtualMachine::Configure() (start "
                  "from VmOptions::FromEnv() to keep environment defaults)");
    }
  }
  return *configured;
}

}  // namespace vm

VmOptions VmOptions::FromEnv() { return vm::VmOptionsFromEnv(base::ProcessEnv()); }

}  // namespace eagervm
