#include "ops/op_util.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

#include "base/str_cat.h"

namespace eagervm::internal {

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b, std::string_view op) {
  if (a == b) return a;  // the common case, on every op's submission path
  const int rank = a.rank() > b.rank() ? a.rank() : b.rank();
  Shape out;
  for (int d = 0; d < rank; ++d) {
    const int da = d - (rank - a.rank()), db = d - (rank - b.rank());
    const int64_t x = da < 0 ? 1 : a[da], y = db < 0 ? 1 : b[db];
    if (x != y && x != 1 && y != 1) {
      return absl::InvalidArgumentError(base::Cat(op, ": cannot broadcast ", a, " with ", b,
                                                  " (dim ", d, " of the result: ", x, " vs ", y,
                                                  ")"));
    }
    out.push_back(x == 1 ? y : x);
  }
  return out;
}

std::string ScalarToString(const Scalar& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

namespace {

template <typename I>
bool FitsInteger(const Scalar& s) {
  constexpr int64_t lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();
  if (s.is_bool()) return true;
  if (s.is_int()) return s.to<int64_t>() >= lo && s.to<int64_t>() <= hi;
  const double v = s.to<double>();
  // [lo, hi + 1) is exact in double for uint8, int32 and int64 alike.
  const double end = lo < 0 ? -static_cast<double>(lo) : static_cast<double>(hi) + 1;
  return std::isfinite(v) && std::trunc(v) == v && v >= static_cast<double>(lo) && v < end;
}

bool Fits(const Scalar& s, DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
      return true;  // rounded to the dtype, as numpy does for a Python float
    case DType::kUInt8:
      return FitsInteger<uint8_t>(s);
    case DType::kInt32:
      return FitsInteger<int32_t>(s);
    case DType::kInt64:
      return FitsInteger<int64_t>(s);
    case DType::kBool:
      if (s.is_bool()) return true;
      if (s.is_int()) return s.to<int64_t>() == 0 || s.to<int64_t>() == 1;
      return s.to<double>() == 0.0 || s.to<double>() == 1.0;
  }
  return false;
}

}  // namespace

absl::Status CheckScalarFits(const Scalar& s, DType dtype, std::string_view op) {
  if (Fits(s, dtype)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      base::Cat(op, ": scalar ", ScalarToString(s), " is not exactly representable as ", dtype,
                " (scalars are converted to the tensor's dtype and never rounded; Cast the "
                "tensor first)"));
}

absl::StatusOr<int> NormalizeAxis(int axis, const Shape& shape, std::string_view op) {
  const int rank = shape.rank();
  if (rank == 0) {
    return absl::InvalidArgumentError(
        base::Cat(op, ": axis ", axis, " given for a scalar (shape []), which has no axes"));
  }
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(base::Cat(op, ": axis ", axis, " is out of range for ", shape,
                                                " (rank ", rank, ", valid axes [", -rank, ", ",
                                                rank, "))"));
  }
  return axis < 0 ? axis + rank : axis;
}

Shape ReducedShape(const Shape& in, int axis, bool keepdim) {
  Shape out;
  for (int d = 0; d < in.rank(); ++d) {
    if (d != axis)
      out.push_back(in[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

}  // namespace eagervm::internal
