// ParseByteSize: a byte count as people write it in environment variables and
// configs: "1048576", "64MiB", "1.5 GiB", "512k". Shared by every option that
// holds a size (memory limits, cache caps).
#ifndef EAGERVM_BASE_BYTE_SIZE_H_
#define EAGERVM_BASE_BYTE_SIZE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace eagervm::base {

// Accepts a non-negative number (integer or decimal) followed by an optional
// unit, case-insensitive, optionally separated by spaces:
//   B; KiB MiB GiB TiB (powers of 1024); K M G T (also powers of 1024, as in
//   most tools); KB MB GB TB (powers of 1000, as SI says).
// The result is truncated to whole bytes. InvalidArgument names the text on
// anything else (negative, empty, unknown unit, overflow of int64).
// Thread-safe; no allocation on success.
[[nodiscard]] absl::StatusOr<int64_t> ParseByteSize(std::string_view text);

// "64 MiB", "1.50 GiB", "512 B": for messages and logs.
std::string FormatByteSize(int64_t bytes);

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_BYTE_SIZE_H_
