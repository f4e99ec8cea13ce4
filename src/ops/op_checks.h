// Validation shared by the ops: every failure names the op and the shapes.
#ifndef EAGERVM_OPS_OP_CHECKS_H_
#define EAGERVM_OPS_OP_CHECKS_H_

#include <string_view>

#include "absl/status/status.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

// Both defined, ok, on one device and of one dtype.
absl::Status CheckSameDeviceAndDType(const Tensor& a, const Tensor& b, std::string_view op);
// As above, and of equal shapes.
absl::Status CheckSameMeta(const Tensor& a, const Tensor& b, std::string_view op);
// Not bool (arithmetic is not defined on it).
absl::Status CheckNumeric(const Tensor& t, std::string_view op);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OP_CHECKS_H_
