// Internal logging: EAGERVM_LOG(kWarning, "text ", value, ...) formats with
// base::Cat only when the level is enabled and hands the line to the host's
// sink (include/eagervm/log.h). A disabled level costs one relaxed load.
#ifndef EAGERVM_BASE_LOG_H_
#define EAGERVM_BASE_LOG_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/str_cat.h"
#include "eagervm/log.h"

namespace eagervm::base {

namespace internal {
// The current level; kUnset until SetLogLevel or the first message.
inline constexpr int kLevelUnset = -1;
extern std::atomic<int> g_log_level;
int InitLogLevel();  // EAGERVM_LOG_LEVEL, from the environment registry
}  // namespace internal

inline bool LogEnabled(LogLevel level) {
  int current = internal::g_log_level.load(std::memory_order_relaxed);
  if (current == internal::kLevelUnset) current = internal::InitLogLevel();
  return level != LogLevel::kOff && static_cast<int>(level) >= current;
}

// Delivers `message` to the sink (regardless of level; use EAGERVM_LOG).
void LogMessage(LogLevel level, std::string_view message);

// "debug", "info", "warning" (or "warn"), "error", "off"; case-insensitive.
std::optional<LogLevel> ParseLogLevel(std::string_view text);

// EAGERVM_LOG_LEVEL from the process environment (base/env_registry.h), or
// kWarning when it is unset or bad; SetLogLevel() wins over it. Thread-safe.
LogLevel EnvLogLevel();

}  // namespace eagervm::base

#define EAGERVM_LOG(level, ...)                                                                   \
  do {                                                                                            \
    if (::eagervm::base::LogEnabled(::eagervm::LogLevel::level)) {                                \
      ::eagervm::base::LogMessage(::eagervm::LogLevel::level, ::eagervm::base::Cat(__VA_ARGS__)); \
    }                                                                                             \
  } while (0)

// EAGERVM_LOG, at most once per `ms` milliseconds at this call site (the
// others are dropped, and the next line that passes says how many): for
// events that can repeat in a loop (allocator growth, back-pressure). The
// disabled level still costs one relaxed load; an enabled one a clock read.
#define EAGERVM_LOG_EVERY_MS(level, ms, ...)                                                  \
  do {                                                                                        \
    if (::eagervm::base::LogEnabled(::eagervm::LogLevel::level)) {                            \
      static ::eagervm::base::LogRateLimit eagervm_log_limit_;                                \
      if (int64_t eagervm_dropped_ = 0; eagervm_log_limit_.Pass(ms, &eagervm_dropped_)) {     \
        ::eagervm::base::LogMessage(                                                          \
            ::eagervm::LogLevel::level,                                                       \
            ::eagervm::base::Cat(                                                             \
                __VA_ARGS__,                                                                  \
                eagervm_dropped_ > 0                                                          \
                    ? ::eagervm::base::Cat(" (", eagervm_dropped_, " similar lines dropped)") \
                    : std::string()));                                                        \
      }                                                                                       \
    }                                                                                         \
  } while (0)

namespace eagervm::base {
// One call site's limiter (EAGERVM_LOG_EVERY_MS). Thread-safe, lock-free.
class LogRateLimit {
 public:
  // True if `ms` passed since the last line that passed; `*dropped` is the
  // lines dropped meanwhile.
  bool Pass(int64_t ms, int64_t* dropped);

 private:
  std::atomic<int64_t> last_ms_{-1};
  std::atomic<int64_t> dropped_{0};
};
}  // namespace eagervm::base

#endif  // EAGERVM_BASE_LOG_H_
