// Scalar: an int64, double or bool without precision loss. A value type:
// copy it freely; any thread, never blocks.
#ifndef EAGERVM_SCALAR_H_
#define EAGERVM_SCALAR_H_

#include <cstdint>
#include <iosfwd>
#include <type_traits>

#include "eagervm/export.h"

namespace eagervm {

class EAGERVM_EXPORT Scalar {
 public:
  enum class Kind { kInt, kDouble, kBool };

  Scalar() : Scalar(int64_t{0}) {}
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::kInt), i_(static_cast<int64_t>(v)) {}  // NOLINT: implicit by design
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::kDouble), d_(static_cast<double>(v)) {}  // NOLINT
  Scalar(bool v) : kind_(Kind::kBool), b_(v) {}                      // NOLINT

  Kind kind() const { return kind_; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_double() const { return kind_ == Kind::kDouble; }
  bool is_bool() const { return kind_ == Kind::kBool; }

  // The value converted to T (C++ conversion rules).
  template <typename T>
  T to() const {
    switch (kind_) {
      case Kind::kInt:
        return static_cast<T>(i_);
      case Kind::kDouble:
        return static_cast<T>(d_);
      case Kind::kBool:
        return static_cast<T>(b_);
    }
    return T{};
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
    bool b_;
  };
};

EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace eagervm

#endif  // EAGERVM_SCALAR_H_
