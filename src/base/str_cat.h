// Cat: concatenates anything fmt can print (std::string_view, absl::string_view,
// Shape, DType, Device, numbers). Used instead of absl::StrCat, which in
// Debian's abseil does not accept std::string_view.
#ifndef EAGERVM_BASE_STR_CAT_H_
#define EAGERVM_BASE_STR_CAT_H_

#include <iterator>
#include <string>

#include "base/format.h"

namespace eagervm::base {

template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  (fmt::format_to(std::back_inserter(out), "{}", args), ...);
  return out;
}

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_STR_CAT_H_
