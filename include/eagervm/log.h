// Logging: the few messages eagervm cannot return as a status (configuration
// warnings, a trace that could not be written at exit) go to a log sink the
// host application may replace. eagervm never owns global logging state of
// the host (no absl/glog initialisation) and installs no signal handlers.
#ifndef EAGERVM_LOG_H_
#define EAGERVM_LOG_H_

#include <functional>
#include <string_view>

#include "eagervm/export.h"

namespace eagervm {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

// Receives each message at or above the log level, without a trailing
// newline. May be called from any thread, VM threads included, and
// concurrently: it must be thread-safe, must not block for long, and must not
// call blocking eagervm functions. Exceptions it throws are swallowed.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

// Any thread. Replaces the sink; an empty function restores the default,
// which writes "eagervm W: message" lines to stderr. Messages already being
// delivered finish with the old sink.
EAGERVM_EXPORT void SetLogSink(LogSink sink);

// Any thread, never blocks. The default comes from EAGERVM_LOG_LEVEL (debug,
// info, warning, error, off), else warning. An explicit call wins over the
// environment.
EAGERVM_EXPORT void SetLogLevel(LogLevel level);
// Any thread, never blocks (the first call may read the environment).
EAGERVM_EXPORT LogLevel GetLogLevel();

// Any thread. "debug", "info", ...: a view of a static string (valid forever).
EAGERVM_EXPORT std::string_view ToString(LogLevel level);

}  // namespace eagervm

#endif  // EAGERVM_LOG_H_
