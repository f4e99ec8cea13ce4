// Marks cached (free) allocator memory as unaddressable under AddressSanitizer,
// so a kernel touching a released tensor's storage is reported even though the
// memory was never returned to the system. No-ops in other builds.
#ifndef EAGERVM_MEMORY_ASAN_POISON_H_
#define EAGERVM_MEMORY_ASAN_POISON_H_

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define EAGERVM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EAGERVM_ASAN 1
#endif
#endif

#ifdef EAGERVM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace eagervm::memory {

inline void AsanPoison(const void* p, size_t n) {
#ifdef EAGERVM_ASAN
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}

inline void AsanUnpoison(const void* p, size_t n) {
#ifdef EAGERVM_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace eagervm::memory

#endif  // EAGERVM_MEMORY_ASAN_POISON_H_
