#include "base/env_registry.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "absl/strings/ascii.h"
#include "base/byte_size.h"
#include "base/log.h"

extern char** environ;

namespace eagervm::base {
namespace {

constexpr std::string_view kPrefix = "EAGERVM_";

int64_t AsInt(const EnvValue& v) { return std::get<int64_t>(v); }
bool AsBool(const EnvValue& v) { return std::get<bool>(v); }

// The table. To add a variable: add a VmOptions field (with its default), a
// row here whose default_text parses to that default, and regenerate the
// table in docs/env.md (env_test prints it when they differ).
const EnvVar kVars[] = {
    {"EAGERVM_CPU_STREAMS", EnvType::kInt, "2",
     "Compute streams (and worker threads) on the CPU; `Stream(Device::Cpu(), i)` needs "
     "`i` below it.",
     1, 64, [](const EnvValue& v, VmOptions* o) { o->cpu_streams = static_cast<int>(AsInt(v)); }},
    {"EAGERVM_COMPUTE_ON_SCHEDULER_THREAD", EnvType::kBool, "false",
     "Run CPU kernels on the scheduler thread (no hand-off per op, no stream parallelism).", 0, 1,
     [](const EnvValue& v, VmOptions* o) { o->compute_on_scheduler_thread = AsBool(v); }},
    {"EAGERVM_INLINE_MAX_BYTES", EnvType::kByteSize, "16KiB",
     "Small CPU op calls (operands up to this many bytes, of ops that allow it) run on the "
     "scheduler thread when their stream is idle, skipping the handoff to its worker (`0`: never).",
     0, INT64_MAX, [](const EnvValue& v, VmOptions* o) { o->inline_max_bytes = AsInt(v); }},
    {"EAGERVM_DONATE_MAX_BYTES", EnvType::kByteSize, "1MiB",
     "Op calls and releases (operands up to this many bytes) made while nothing is in flight "
     "run on the calling thread instead of being queued (`0`: always queue).",
     0, INT64_MAX, [](const EnvValue& v, VmOptions* o) { o->donate_max_bytes = AsInt(v); }},
    {"EAGERVM_RUN_AHEAD_MAX_BYTES", EnvType::kByteSize, "256KiB",
     "Bounded run-ahead: a thread whose queued ops are estimated to cost more than this "
     "(operand bytes plus 4KiB per op) since it last found the VM idle yields until the VM "
     "catches up (`0`: unbounded).",
     0, INT64_MAX, [](const EnvValue& v, VmOptions* o) { o->run_ahead_max_bytes = AsInt(v); }},
    {"EAGERVM_SYNCHRONOUS", EnvType::kBool, "false",
     "Deterministic debugging mode: no VM threads; each submission runs on the calling thread "
     "before it returns.",
     0, 1, [](const EnvValue& v, VmOptions* o) { o->synchronous = AsBool(v); }},
    {"EAGERVM_MAX_IN_FLIGHT", EnvType::kInt, "65536",
     "Back-pressure: a submitting thread blocks while more instructions than this are in "
     "flight, until half have finished.",
     2, INT64_MAX, [](const EnvValue& v, VmOptions* o) { o->max_in_flight = AsInt(v); }},
    {"EAGERVM_SPIN_US", EnvType::kInt, "100",
     "Microseconds VM threads spin for more work before they park (0: park at once).", 0, 1'000'000,
     [](const EnvValue& v, VmOptions* o) { o->spin_us = AsInt(v); }},
    {"EAGERVM_CPU_MEMORY_LIMIT", EnvType::kByteSize, "0",
     "Bytes the CPU allocators may hold from the system, all CPU streams together "
     "(`0`: unlimited).",
     0, INT64_MAX, [](const EnvValue& v, VmOptions* o) { o->cpu_memory_limit = AsInt(v); }},
    {"EAGERVM_CUDA_MEMORY_LIMIT", EnvType::kByteSize, "0",
     "Bytes of live tensors per CUDA device (`0`: the device's memory).", 0, INT64_MAX,
     [](const EnvValue& v, VmOptions* o) { o->cuda_memory_limit = AsInt(v); }},
    {"EAGERVM_OOM_WAIT_MS", EnvType::kInt, "250",
     "Out of memory: how long an allocation waits for other streams to free memory before it "
     "fails with `RESOURCE_EXHAUSTED`.",
     0, 3'600'000, [](const EnvValue& v, VmOptions* o) { o->oom_wait_ms = AsInt(v); }},
    {"EAGERVM_HANG_TIMEOUT_MS", EnvType::kInt, "0",
     "Hang diagnostics: a blocking call that sees no instruction finish for this long returns "
     "`DEADLINE_EXCEEDED` and logs what the VM is doing (`0`: wait forever).",
     0, 86'400'000, [](const EnvValue& v, VmOptions* o) { o->hang_timeout_ms = AsInt(v); }},
    {"EAGERVM_COLLECTIVES_ON_CALLER", EnvType::kBool, "false",
     "A CPU collective submitted to an idle VM runs on the submitting thread, which blocks "
     "until it is done (lower latency; collectives otherwise never block).",
     0, 1, [](const EnvValue& v, VmOptions* o) { o->collectives_on_caller = AsBool(v); }},
    {"EAGERVM_TRACE", EnvType::kString, "",
     "Trace the whole run to this Chrome/Perfetto JSON file, written at `Shutdown()` or exit "
     "(docs/tracing.md)."},
    {"EAGERVM_LOG_LEVEL", EnvType::kLogLevel, "warning",
     "Least severe message logged: `debug`, `info`, `warning`, `error` or `off`; "
     "`SetLogLevel()` wins."},
};

const char* Expected(EnvType t) {
  switch (t) {
    case EnvType::kBool:
      return "a boolean (1/0, true/false, yes/no, on/off)";
    case EnvType::kInt:
      return "an integer";
    case EnvType::kByteSize:
      return "a byte size (e.g. 1048576, 64MiB, 1.5GiB, 512k)";
    case EnvType::kString:
      return "a string";
    case EnvType::kLogLevel:
      return "a log level (debug, info, warning, error, off)";
  }
  return "?";
}

// Levenshtein distance, for "did you mean" on misspelt names.
size_t Distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view ToString(EnvType type) {
  switch (type) {
    case EnvType::kBool:
      return "bool";
    case EnvType::kInt:
      return "int";
    case EnvType::kByteSize:
      return "bytes";
    case EnvType::kString:
      return "string";
    case EnvType::kLogLevel:
      return "level";
  }
  return "?";
}

absl::Span<const EnvVar> EnvVars() { return kVars; }

const EnvVar* FindEnvVar(std::string_view name) {
  for (const EnvVar& v : kVars) {
    if (name == v.name) return &v;
  }
  return nullptr;
}

absl::StatusOr<EnvValue> ParseEnvValue(const EnvVar& var, std::string_view text) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        Cat(var.name, "='", text, "' is not ", Expected(var.type), why));
  };
  switch (var.type) {
    case EnvType::kBool: {
      const std::string t = absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
      if (t == "1" || t == "true" || t == "yes" || t == "on") return EnvValue(true);
      if (t == "0" || t == "false" || t == "no" || t == "off") return EnvValue(false);
      return bad("");
    }
    case EnvType::kInt:
    case EnvType::kByteSize: {
      int64_t v = 0;
      if (var.type == EnvType::kInt) {
        const std::string s(text);
        char* end = nullptr;
        errno = 0;
        const long long x = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE) return bad("");
        v = x;
      } else {
        absl::StatusOr<int64_t> bytes = ParseByteSize(text);
        if (!bytes.ok()) return bad("");
        v = *bytes;
      }
      if (v < var.min || v > var.max) {
        return bad(var.max == INT64_MAX ? Cat(" >= ", var.min)
                                        : Cat(" in [", var.min, ", ", var.max, "]"));
      }
      return EnvValue(v);
    }
    case EnvType::kString:
      return EnvValue(std::string(text));
    case EnvType::kLogLevel:
      if (std::optional<LogLevel> level = ParseLogLevel(text)) return EnvValue(*level);
      return bad("");
  }
  return bad("");
}

ParsedEnv ParseEnv(const std::vector<std::string>& env) {
  ParsedEnv out;
  for (const std::string& entry : env) {
    const std::string_view e(entry);
    if (e.substr(0, kPrefix.size()) != kPrefix) continue;
    const size_t eq = e.find('=');
    const std::string_view name = e.substr(0, eq);
    const std::string_view text = eq == std::string_view::npos ? "" : e.substr(eq + 1);
    const EnvVar* var = FindEnvVar(name);
    if (var == nullptr) {
      const EnvVar* best = &kVars[0];
      for (const EnvVar& v : kVars) {
        if (Distance(name, v.name) < Distance(name, best->name)) best = &v;
      }
      std::string w = Cat("unknown environment variable ", name, " ignored");
      if (Distance(name, best->name) <= 3) w += Cat(" (did you mean ", best->name, "?)");
      out.warnings.push_back(Cat(w, "; the known EAGERVM_* variables are listed in docs/env.md"));
      continue;
    }
    absl::StatusOr<EnvValue> value = ParseEnvValue(*var, text);
    if (!value.ok()) {
      out.warnings.push_back(
          Cat(value.status().message(), "; using the default (", var->default_text, ")"));
      continue;
    }
    if (var->apply != nullptr) {
      var->apply(*value, &out.options);
      out.applied.emplace_back(var, *value);
    } else if (var->type == EnvType::kLogLevel) {
      out.log_level = std::get<LogLevel>(*value);
    } else {
      out.trace_path = std::get<std::string>(*value);
    }
  }
  return out;
}

const ParsedEnv& ParsedProcessEnv() {
  // Logs nothing: the logger's level comes from here, so a message from this
  // initialiser would re-enter it.
  static const ParsedEnv* parsed = [] {
    std::vector<std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      if (std::string_view(*e).substr(0, kPrefix.size()) == kPrefix) env.emplace_back(*e);
    }
    return new ParsedEnv(ParseEnv(env));  // leaked: read during static destruction too
  }();
  return *parsed;
}

const ParsedEnv& ProcessEnv() {
  const ParsedEnv& parsed = ParsedProcessEnv();
  static const bool warned = [&parsed] {
    for (const std::string& w : parsed.warnings) EAGERVM_LOG(kWarning, w);
    return true;
  }();
  (void)warned;
  return parsed;
}

std::string EnvDocTable() {
  std::string t = "| Variable | Type | Default | Meaning |\n|---|---|---|---|\n";
  for (const EnvVar& v : kVars) {
    t += Cat("| `", v.name, "` | ", ToString(v.type), " | ",
             *v.default_text ? Cat("`", v.default_text, "`") : std::string("(unset)"), " | ", v.doc,
             " |\n");
  }
  return t;
}

}  // namespace eagervm::base
