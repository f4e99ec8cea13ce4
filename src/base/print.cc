// Printing of the public value types (Device, DType, Shape, Scalar); a
// TensorMeta prints with the tensor (vm/api/tensor.cc).
#include <ostream>
#include <string>

#include "eagervm/device.h"
#include "eagervm/dtype.h"
#include "eagervm/half.h"
#include "eagervm/scalar.h"
#include "eagervm/shape.h"

namespace eagervm {

std::string Device::ToString() const {
  return type_ == DeviceType::kCPU ? std::string("cpu") : "cuda:" + std::to_string(index_);
}
std::ostream& operator<<(std::ostream& os, Device d) { return os << d.ToString(); }
std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << (t == DeviceType::kCPU ? "cpu" : "cuda");
}

std::string_view ToString(DType d) {
  switch (d) {
    case DType::kBool:
      return "bool";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kUInt8:
      return "uint8";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
  }
  return "unknown";
}
std::ostream& operator<<(std::ostream& os, DType d) { return os << ToString(d); }
std::ostream& operator<<(std::ostream& os, Half h) { return os << h.ToFloat(); }
std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << h.ToFloat(); }

std::string Shape::InvalidReason() const {
  if (overflow_) {
    return "more than " + std::to_string(kMaxDims) + " dimensions (the first " +
           std::to_string(kMaxDims) + " are shown)";
  }
  for (int i = 0; i < rank_; ++i) {
    if (dims_[i] < 0) {
      return "dimension " + std::to_string(i) + " is " + std::to_string(dims_[i]) +
             " (dims must be >= 0)";
    }
  }
  if (!IsValid()) {
    return "the element count overflows (more than 2^60 elements, the most a tensor may hold)";
  }
  return "";
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}
std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.ToString(); }

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::kInt:
      return os << s.to<int64_t>();
    case Scalar::Kind::kDouble:
      return os << s.to<double>();
    case Scalar::Kind::kBool:
      return os << (s.to<bool>() ? "true" : "false");
  }
  return os;
}

}  // namespace eagervm
