#include "base/log.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "base/env_registry.h"
#include "base/mutex.h"

namespace eagervm {
namespace base {
namespace {
// Base's table of the environment registry (base/env_registry.h).
const EnvVar kLogLevelVar = {
    "EAGERVM_LOG_LEVEL", EnvType::kLogLevel, "warning",
    "Least severe message logged: `debug`, `info`, `warning`, `error` or `off`; "
    "`SetLogLevel()` wins."};
const EnvVarsRegistration kLogEnvVars(/*doc_rank=*/2, {&kLogLevelVar});
}  // namespace

LogLevel EnvLogLevel() {
  const EnvValue* v = ParsedProcessEnv().Find(kLogLevelVar);
  return v != nullptr ? std::get<LogLevel>(*v) : LogLevel::kWarning;
}

namespace internal {
std::atomic<int> g_log_level{kLevelUnset};

int InitLogLevel() {
  // EAGERVM_LOG_LEVEL through the environment registry (default: warning). A
  // bad value is one of the registry's warnings, which ProcessEnv() logs
  // through here; ParsedProcessEnv() logs nothing, so this cannot recurse.
  const LogLevel level = EnvLogLevel();
  int expected = kLevelUnset;
  g_log_level.compare_exchange_strong(expected, static_cast<int>(level), std::memory_order_relaxed);
  return g_log_level.load(std::memory_order_relaxed);
}
}  // namespace internal

namespace {
struct SinkSlot {
  Mutex mu;
  std::shared_ptr<const LogSink> sink ABSL_GUARDED_BY(mu);  // null: DefaultSink
};
SinkSlot& Slot() {
  static auto* slot = new SinkSlot;  // leaked: messages may come during static destruction
  return *slot;
}

void DefaultSink(LogLevel level, std::string_view message) {
  static constexpr char kLetters[] = "DIWE";
  std::string line = Cat("eagervm ", kLetters[static_cast<int>(level)], ": ", message, "\n");
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write: lines do not interleave
}
}  // namespace

void LogMessage(LogLevel level, std::string_view message) {
  if (level == LogLevel::kOff) return;
  std::shared_ptr<const LogSink> sink;
  {
    SinkSlot& slot = Slot();
    MutexLock lock(&slot.mu);
    sink = slot.sink;
  }
  if (sink == nullptr) {
    DefaultSink(level, message);
    return;
  }
  try {
    (*sink)(level, message);
  } catch (...) {
    // The host's sink failed; nothing sensible to report it to.
  }
}

std::optional<LogLevel> ParseLogLevel(std::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
  if (t == "debug") return LogLevel::kDebug;
  if (t == "info") return LogLevel::kInfo;
  if (t == "warning" || t == "warn") return LogLevel::kWarning;
  if (t == "error") return LogLevel::kError;
  if (t == "off" || t == "none") return LogLevel::kOff;
  return std::nullopt;
}

bool LogRateLimit::Pass(int64_t ms, int64_t* dropped) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t last = last_ms_.load(std::memory_order_relaxed);
  if ((last >= 0 && now - last < ms) ||
      !last_ms_.compare_exchange_strong(last, now, std::memory_order_relaxed)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  *dropped = dropped_.exchange(0, std::memory_order_relaxed);
  return true;
}

}  // namespace base

void SetLogSink(LogSink sink) {
  std::shared_ptr<const LogSink> p;
  if (sink) p = std::make_shared<const LogSink>(std::move(sink));
  base::SinkSlot& slot = base::Slot();
  base::MutexLock lock(&slot.mu);
  slot.sink = std::move(p);
}

void SetLogLevel(LogLevel level) {
  base::internal::g_log_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

LogLevel GetLogLevel() {
  int current = base::internal::g_log_level.load(std::memory_order_relaxed);
  if (current == base::internal::kLevelUnset) current = base::internal::InitLogLevel();
  return static_cast<LogLevel>(current);
}

std::string_view ToString(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "?";
}

}  // namespace eagervm
