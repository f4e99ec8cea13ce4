#include "base/env_registry.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "absl/strings/ascii.h"
#include "base/byte_size.h"
#include "base/log.h"
#include "base/mutex.h"

extern char** environ;

namespace eagervm::base {
namespace {

constexpr std::string_view kPrefix = "EAGERVM_";

// The registered tables. Leaked: read during static destruction too (the
// logger asks for its level at any time).
struct Registry {
  Mutex mu;
  std::vector<std::pair<int, std::vector<const EnvVar*>>> tables ABSL_GUARDED_BY(mu);
  std::vector<const EnvVar*> vars ABSL_GUARDED_BY(mu);  // flattened, in doc order
  int generation ABSL_GUARDED_BY(mu) = 0;               // bumped per registration
  // The process environment's parse and the generation it saw (leaked too:
  // a reference handed out stays valid after a re-parse).
  const ParsedEnv* parsed ABSL_GUARDED_BY(mu) = nullptr;
  int parsed_generation ABSL_GUARDED_BY(mu) = -1;
};
Registry& TheRegistry() {
  static Registry* r = new Registry;
  return *r;
}

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

EnvVarsRegistration::EnvVarsRegistration(int doc_rank, std::vector<const EnvVar*> vars) {
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  auto at = std::upper_bound(r.tables.begin(), r.tables.end(), doc_rank,
                             [](int rank, const auto& table) { return rank < table.first; });
  r.tables.emplace(at, doc_rank, std::move(vars));
  r.vars.clear();
  for (const auto& [rank, table] : r.tables)
    r.vars.insert(r.vars.end(), table.begin(), table.end());
  ++r.generation;
}

std::vector<const EnvVar*> EnvVars() {
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  return r.vars;
}

const EnvVar* FindEnvVar(std::string_view name) {
  for (const EnvVar* v : EnvVars()) {
    if (name == v->name) return v;
  }
  return nullptr;
}

const EnvValue* ParsedEnv::Find(const EnvVar& var) const {
  for (const auto& [v, value] : values) {
    if (v == &var) return &value;
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
  const std::vector<const EnvVar*> vars = EnvVars();
  for (const std::string& entry : env) {
    const std::string_view e(entry);
    if (e.substr(0, kPrefix.size()) != kPrefix) continue;
    const size_t eq = e.find('=');
    const std::string_view name = e.substr(0, eq);
    const std::string_view text = eq == std::string_view::npos ? "" : e.substr(eq + 1);
    const EnvVar* var = nullptr;
    for (const EnvVar* v : vars) {
      if (name == v->name) var = v;
    }
    if (var == nullptr) {
      const EnvVar* best = nullptr;
      for (const EnvVar* v : vars) {
        if (best == nullptr || Distance(name, v->name) < Distance(name, best->name)) best = v;
      }
      std::string w = Cat("unknown environment variable ", name, " ignored");
      if (best != nullptr && Distance(name, best->name) <= 3) {
        w += Cat(" (did you mean ", best->name, "?)");
      }
      out.warnings.push_back(Cat(w, "; the known EAGERVM_* variables are listed in docs/env.md"));
      continue;
    }
    absl::StatusOr<EnvValue> value = ParseEnvValue(*var, text);
    if (!value.ok()) {
      out.warnings.push_back(
          Cat(value.status().message(), "; using the default (", var->default_text, ")"));
      continue;
    }
    out.values.emplace_back(var, *std::move(value));
  }
  return out;
}

const ParsedEnv& ParsedProcessEnv() {
  // Logs nothing: the logger's level comes from here, so a message from this
  // initialiser would re-enter it.
  // The EAGERVM_* entries, copied once: later setenv() calls are not seen.
  static const std::vector<std::string>* entries = [] {
    auto* env = new std::vector<std::string>;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      if (std::string_view(*e).substr(0, kPrefix.size()) == kPrefix) env->emplace_back(*e);
    }
    return env;
  }();
  Registry& r = TheRegistry();
  int generation;
  {
    MutexLock lock(&r.mu);
    if (r.parsed != nullptr && r.parsed_generation == r.generation) return *r.parsed;
    generation = r.generation;
  }
  // Parsed outside the lock (ParseEnv reads the registry). Normally once:
  // again only if a table was registered since the last parse (during
  // static initialisation).
  auto* parsed = new ParsedEnv(ParseEnv(*entries));
  MutexLock lock(&r.mu);
  if (r.parsed == nullptr || r.parsed_generation < generation) {
    r.parsed = parsed;  // an earlier parse is leaked: references to it stay valid
    r.parsed_generation = generation;
  } else {
    delete parsed;
  }
  return *r.parsed;
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
  for (const EnvVar* v : EnvVars()) {
    t += Cat("| `", v->name, "` | ", ToString(v->type), " | ",
             *v->default_text ? Cat("`", v->default_text, "`") : std::string("(unset)"), " | ",
             v->doc, " |\n");
  }
  return t;
}

}  // namespace eagervm::base
