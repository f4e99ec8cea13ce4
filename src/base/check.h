// EAGERVM_DCHECK(condition, message): an internal invariant. In debug builds
// (!NDEBUG) and sanitizer builds (ASan, TSan) a false condition prints
// "file:line: function: check failed: condition: message" to stderr and
// aborts; elsewhere the condition and the message are compiled (so they stay
// well-formed) but never evaluated, and cost nothing.
//
// For bugs in eagervm itself only. Anything a user can cause is a Status.
// `message` is anything convertible to std::string_view (a literal, or a
// std::string from base::Cat); it is evaluated only when the check fails.
// EAGERVM_DCHECK_IS_ON is 1 where checks run, 0 elsewhere (tests use it to
// skip death tests).
#ifndef EAGERVM_BASE_CHECK_H_
#define EAGERVM_BASE_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string_view>

#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EAGERVM_DCHECK_IS_ON 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define EAGERVM_DCHECK_IS_ON 1
#endif
#endif
#ifndef EAGERVM_DCHECK_IS_ON
#define EAGERVM_DCHECK_IS_ON 0
#endif

namespace eagervm::base::internal {

[[noreturn, gnu::cold, gnu::noinline]] inline void DCheckFailed(const char* file, int line,
                                                                const char* function,
                                                                const char* condition,
                                                                std::string_view message) {
  std::fprintf(stderr, "%s:%d: %s: check failed: %s: %.*s\n", file, line, function, condition,
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace eagervm::base::internal

#if EAGERVM_DCHECK_IS_ON
#define EAGERVM_DCHECK(condition, message)                                              \
  do {                                                                                  \
    if (__builtin_expect(!(condition), 0)) {                                            \
      ::eagervm::base::internal::DCheckFailed(__FILE__, __LINE__, __func__, #condition, \
                                              (message));                               \
    }                                                                                   \
  } while (0)
#else
#define EAGERVM_DCHECK(condition, message) \
  do {                                     \
    if (false) {                           \
      (void)(condition);                   \
      (void)(message);                     \
    }                                      \
  } while (0)
#endif

#endif  // EAGERVM_BASE_CHECK_H_
