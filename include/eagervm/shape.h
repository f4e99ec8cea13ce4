// Shape: dimensions stored inline (no heap), up to kMaxDims. A value type:
// copy it freely; any thread, never blocks (like an int, one object must not
// be modified while another thread reads it).
#ifndef EAGERVM_SHAPE_H_
#define EAGERVM_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>

#include "absl/types/span.h"
#include "eagervm/export.h"

namespace eagervm {

class EAGERVM_EXPORT Shape {
 public:
  static constexpr int kMaxDims = 8;

  Shape() = default;  // a scalar: rank 0, one element
  // Dims beyond kMaxDims are a programming error caught by the ops that take
  // shapes (they validate with IsValid()); the constructor keeps the first kMaxDims.
  Shape(std::initializer_list<int64_t> dims)
      : Shape(absl::MakeConstSpan(dims.begin(), dims.size())) {}
  explicit Shape(absl::Span<const int64_t> dims) {
    rank_ = static_cast<int8_t>(dims.size() > kMaxDims ? kMaxDims : dims.size());
    overflow_ = dims.size() > kMaxDims;
    for (int i = 0; i < rank_; ++i) dims_[i] = dims[i];
  }

  int rank() const { return rank_; }  // the number of dimensions (Tensor::size(i) is an extent)
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + rank_; }
  absl::Span<const int64_t> dims() const { return {dims_, static_cast<size_t>(rank_)}; }

  // Elements a valid shape holds at most, so that its bytes (8 per element
  // at most) fit an int64 (and a size_t).
  static constexpr int64_t kMaxNumel = int64_t{1} << 60;
  // Meaningful for a valid shape only (an invalid one's product wraps; no UB).
  int64_t numel() const {
    uint64_t n = 1;
    for (int i = 0; i < rank_; ++i) n *= static_cast<uint64_t>(dims_[i]);
    return static_cast<int64_t>(n);
  }
  // False if a dimension is negative, more than kMaxDims were given, or the
  // element count exceeds kMaxNumel.
  bool IsValid() const {
    if (overflow_) return false;
    bool empty = false;
    for (int i = 0; i < rank_; ++i) {
      if (dims_[i] < 0) return false;
      empty |= dims_[i] == 0;
    }
    if (empty) return true;  // no elements, whatever the other extents
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) {
      if (dims_[i] > kMaxNumel / n) return false;
      n *= dims_[i];
    }
    return true;
  }
  // Any thread. Why the shape is invalid, for `op`'s error message ("Zeros:
  // invalid shape [...]: the element count overflows (more than 2^60)"), or
  // "" for a valid shape.
  std::string InvalidReason() const;
  void push_back(int64_t d) {
    if (rank_ < kMaxDims)
      dims_[rank_++] = d;
    else
      overflow_ = true;
  }

  std::string ToString() const;  // "[2,3]"; a scalar prints as "[]"

  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i)
      if (a.dims_[i] != b.dims_[i]) return false;
    return true;
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  int64_t dims_[kMaxDims] = {};
  int8_t rank_ = 0;
  bool overflow_ = false;
};

EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const Shape& s);

}  // namespace eagervm

#endif  // EAGERVM_SHAPE_H_
