// The registry of EAGERVM_* environment variables: one table with each
// variable's name, type, default and doc. Variables only fill defaults (of
// VmOptions, or of process settings such as the log level and the trace
// file); they are read once per process, at the first of: the VM's creation,
// VmOptions::FromEnv(), the first log message or GetLogLevel(). docs/env.md
// is checked against the table by tests/env_test.cc.
#ifndef EAGERVM_BASE_ENV_REGISTRY_H_
#define EAGERVM_BASE_ENV_REGISTRY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/log.h"
#include "eagervm/virtual_machine.h"

namespace eagervm::base {

enum class EnvType { kBool, kInt, kByteSize, kString, kLogLevel };
std::string_view ToString(EnvType type);

using EnvValue = std::variant<bool, int64_t, std::string, LogLevel>;

struct EnvVar {
  const char* name;
  EnvType type;
  const char* default_text;  // as a user would write it; parses to VmOptions{}'s value
  const char* doc;           // one line of Markdown
  int64_t min = 0;           // kInt, kByteSize: inclusive range
  int64_t max = INT64_MAX;
  // Stores a parsed value into options; nullptr for process settings.
  void (*apply)(const EnvValue& value, VmOptions* options) = nullptr;
};

// Every variable, in documentation order.
absl::Span<const EnvVar> EnvVars();
const EnvVar* FindEnvVar(std::string_view name);

// InvalidArgument naming the variable, the text and what is expected.
absl::StatusOr<EnvValue> ParseEnvValue(const EnvVar& var, std::string_view text);

// An environment, parsed: VmOptions defaults with the variables applied, the
// process settings, and one warning per unknown or unparsable EAGERVM_* name.
struct ParsedEnv {
  VmOptions options;
  std::vector<std::pair<const EnvVar*, EnvValue>> applied;  // VmOptions variables that were set
  std::string trace_path;                                   // EAGERVM_TRACE
  LogLevel log_level = LogLevel::kWarning;                  // EAGERVM_LOG_LEVEL (log.cc)
  std::vector<std::string> warnings;
};
// `env`: NAME=VALUE entries (as in environ); non-EAGERVM_ names are ignored.
ParsedEnv ParseEnv(const std::vector<std::string>& env);

// The process environment, parsed on first call; its warnings are logged
// then, once. Thread-safe.
const ParsedEnv& ProcessEnv();
// The same parse, without logging its warnings: for the logger itself, which
// takes its level from here (ProcessEnv's warnings are logged through it).
const ParsedEnv& ParsedProcessEnv();

// The Markdown table docs/env.md contains (between its generated markers).
std::string EnvDocTable();

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_ENV_REGISTRY_H_
