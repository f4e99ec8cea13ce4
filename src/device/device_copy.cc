#include "device/device_copy.h"

#include "base/str_cat.h"

#ifdef EAGERVM_WITH_CUDA
#include "device/cuda/copy_policy.h"
#endif

namespace eagervm::device {

absl::Status CrossDeviceCopy(const Tensor& dst, const Tensor& src, std::string_view op) {
#ifdef EAGERVM_WITH_CUDA
  return cuda::SubmitCrossDeviceCopy(dst, src, op);
#else
  const Device cuda = dst.device().is_cpu() ? src.device() : dst.device();
  return absl::FailedPreconditionError(
      base::Cat(op, ": cannot copy ", src.device().ToString(), " to ", dst.device().ToString(),
                ": device ", cuda.ToString(),
                " is not available: CudaDeviceCount() is 0 (eagervm was built without CUDA)"));
#endif
}

}  // namespace eagervm::device
