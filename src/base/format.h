// fmt support for the types eagervm prints in messages. Debian's abseil has
// its own absl::string_view (not std::string_view), so fmt needs a formatter.
#ifndef EAGERVM_BASE_FORMAT_H_
#define EAGERVM_BASE_FORMAT_H_

#include <fmt/format.h>

#include <string_view>

#include "absl/strings/string_view.h"
#include "eagervm/device.h"
#include "eagervm/dtype.h"
#include "eagervm/shape.h"

template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(absl::string_view s, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(s.data(), s.size()), ctx);
  }
};
template <>
struct fmt::formatter<eagervm::Shape> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const eagervm::Shape& s, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(s.ToString(), ctx);
  }
};
template <>
struct fmt::formatter<eagervm::DType> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(eagervm::DType d, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(eagervm::ToString(d), ctx);
  }
};
template <>
struct fmt::formatter<eagervm::Device> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(eagervm::Device d, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(d.ToString(), ctx);
  }
};

#endif  // EAGERVM_BASE_FORMAT_H_
