// Portable status-propagation macros (Debian's abseil 20220623 has none, and we
// avoid GNU statement expressions). They evaluate their argument once, on the
// calling thread, and add no locking or waiting of their own.
#ifndef EAGERVM_STATUS_MACROS_H_
#define EAGERVM_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define EAGERVM_CONCAT_INNER_(a, b) a##b
#define EAGERVM_CONCAT_(a, b) EAGERVM_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define EAGERVM_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::absl::Status eagervm_status_ = (expr);           \
    if (!eagervm_status_.ok()) return eagervm_status_; \
  } while (0)

// `lhs` = value of `rexpr` (an absl::StatusOr<T>), or returns its status.
#define EAGERVM_ASSIGN_OR_RETURN(lhs, rexpr) \
  EAGERVM_ASSIGN_OR_RETURN_IMPL_(EAGERVM_CONCAT_(eagervm_statusor_, __LINE__), lhs, rexpr)
#define EAGERVM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                   \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()

#endif  // EAGERVM_STATUS_MACROS_H_
