#include "kernels/cpu/register.h"

#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {

void RegisterCpuKernels(internal::OpRegistry& r) {
  RegisterBasicCpuKernels(r);
  RegisterBinaryCpuKernels(r);
  RegisterUnaryCpuKernels(r);
  RegisterReduceCpuKernels(r);
  RegisterMatMulCpuKernels(r);
  RegisterCastCpuKernels(r);
  RegisterRandomCpuKernels(r);
  RegisterCompareCpuKernels(r);
  RegisterSoftmaxCpuKernels(r);
  RegisterNnCpuKernels(r);
  RegisterLayerNormCpuKernels(r);
  RegisterSoftmaxGradCpuKernels(r);
  RegisterIndexCpuKernels(r);
  RegisterMatMulTransposedCpuKernels(r);
  RegisterInplaceCpuKernels(r);
  RegisterConcatCpuKernels(r);
  RegisterMinCpuKernels(r);
  RegisterStridedCpuKernels(r);
  RegisterOptimCpuKernels(r);
  RegisterHalfCpuKernels(r);  // after the float32 kernels it wraps
}

}  // namespace eagervm::kernels
