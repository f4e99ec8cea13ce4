// Symbol visibility for the eagervm library. The library builds with hidden
// visibility by default; EAGERVM_EXPORT marks the public ABI.
#ifndef EAGERVM_EXPORT_H_
#define EAGERVM_EXPORT_H_

#if defined(EAGERVM_STATIC_DEFINE)
#define EAGERVM_EXPORT
#elif defined(_WIN32)
#ifdef EAGERVM_BUILDING_LIBRARY
#define EAGERVM_EXPORT __declspec(dllexport)
#else
#define EAGERVM_EXPORT __declspec(dllimport)
#endif
#else
// The standard attribute syntax, so it may follow [[nodiscard]]:
// `class [[nodiscard]] EAGERVM_EXPORT Tensor` (a GNU __attribute__ may not).
#define EAGERVM_EXPORT [[gnu::visibility("default")]]
#endif

#endif  // EAGERVM_EXPORT_H_
