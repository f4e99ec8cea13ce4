// The registry of EAGERVM_* environment variables: the mechanism only. Each
// layer registers its own table of variables (name, type, default, doc) with
// an EnvVarsRegistration at namespace scope: base the log level (log.cc),
// profiler the trace file (profiler/env_trace.cc), vm the VmOptions fields
// (vm/lifecycle/vm_options_env.cc), which also says how each one sets its
// field. The environment is read once per process, at the first of: the VM's
// creation, VmOptions::FromEnv(), the first log message or GetLogLevel();
// every layer then looks up the values of its own variables. docs/env.md is
// checked against all the tables by tests/env_test.cc.
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

namespace eagervm::base {

enum class EnvType { kBool, kInt, kByteSize, kString, kLogLevel };
std::string_view ToString(EnvType type);

using EnvValue = std::variant<bool, int64_t, std::string, LogLevel>;

struct EnvVar {
  const char* name;
  EnvType type;
  const char* default_text;  // as a user would write it; parses to the owner's default
  const char* doc;           // one line of Markdown
  int64_t min = 0;           // kInt, kByteSize: inclusive range
  int64_t max = INT64_MAX;
};

// Registers `vars` (rows of a static table, which outlive the process).
// Declare one per table at namespace scope, so it runs before main(); a table
// registered after the environment was first parsed joins a new parse.
// `doc_rank` places the table in docs/env.md (lower first; ties in
// registration order), each table in its own order.
class EnvVarsRegistration {
 public:
  EnvVarsRegistration(int doc_rank, std::vector<const EnvVar*> vars);
};

// Every registered variable, in documentation order. Thread-safe.
std::vector<const EnvVar*> EnvVars();
const EnvVar* FindEnvVar(std::string_view name);

// InvalidArgument naming the variable, the text and what is expected.
absl::StatusOr<EnvValue> ParseEnvValue(const EnvVar& var, std::string_view text);

// An environment, parsed: the value of each registered variable that was
// set, and one warning per unknown or unparsable EAGERVM_* name.
struct ParsedEnv {
  std::vector<std::pair<const EnvVar*, EnvValue>> values;  // in environment order
  std::vector<std::string> warnings;
  // The value of `var` (a registered row), or nullptr if it was not set or
  // did not parse (then the owner's default applies).
  const EnvValue* Find(const EnvVar& var) const;
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
