// Copies between devices (Tensor::To, ops::CopyInto): handed to the CUDA
// backend when it is built, a clear error otherwise.
#ifndef EAGERVM_DEVICE_DEVICE_COPY_H_
#define EAGERVM_DEVICE_DEVICE_COPY_H_

#include <string_view>

#include "absl/status/status.h"
#include "eagervm/tensor.h"

namespace eagervm::device {

// Queues `dst = src`; the tensors are valid, of equal shape and dtype, and on
// different devices. Thread-safe; never blocks (beyond back-pressure).
absl::Status CrossDeviceCopy(const Tensor& dst, const Tensor& src, std::string_view op);

}  // namespace eagervm::device

#endif  // EAGERVM_DEVICE_DEVICE_COPY_H_
