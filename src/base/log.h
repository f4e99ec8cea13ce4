// Internal logging: EAGERVM_LOG(kWarning, "text ", value, ...) formats with
// base::Cat only when the level is enabled and hands the line to the host's
// sink (include/eagervm/log.h). A disabled level costs one relaxed load.
#ifndef EAGERVM_BASE_LOG_H_
#define EAGERVM_BASE_LOG_H_

#include <atomic>
#include <optional>
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

}  // namespace eagervm::base

#define EAGERVM_LOG(level, ...)                                                                   \
  do {                                                                                            \
    if (::eagervm::base::LogEnabled(::eagervm::LogLevel::level)) {                                \
      ::eagervm::base::LogMessage(::eagervm::LogLevel::level, ::eagervm::base::Cat(__VA_ARGS__)); \
    }                                                                                             \
  } while (0)

#endif  // EAGERVM_BASE_LOG_H_
