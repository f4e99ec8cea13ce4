// Cached OpDefs of the built-in ops (looked up once, never per call).
#ifndef EAGERVM_OPS_BUILTIN_H_
#define EAGERVM_OPS_BUILTIN_H_

#include "ops/op_registry.h"

// Expands to a reference to the OpDef of built-in op `name`, resolved once.
#define EAGERVM_BUILTIN_OP(name)                               \
  ([]() -> const ::eagervm::internal::OpDef& {                 \
    static const ::eagervm::internal::OpDef& def =             \
        ::eagervm::internal::OpRegistry::Get().MustFind(name); \
    return def;                                                \
  }())

#endif  // EAGERVM_OPS_BUILTIN_H_
