// The one place that includes <dlpack/dlpack.h>: pins the DLPack ABI this
// layer is written against. Debian's libdlpack-dev 0.6 defines
// DLPACK_VERSION 60 and DLManagedTensor (no DLManagedTensorVersioned, which
// DLPack 1.0 adds together with DLPACK_MAJOR_VERSION). DLManagedTensor's
// layout is unchanged from 0.5 to 0.8, but only 0.6 is tested: widen the
// assertion after testing another version, not before.
#ifndef EAGERVM_INTEROP_DLPACK_ABI_H_
#define EAGERVM_INTEROP_DLPACK_ABI_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

#ifndef DLPACK_VERSION
#error \
    "eagervm interop: <dlpack/dlpack.h> defines no DLPACK_VERSION (DLPack >= 1.0?); 0.6 is supported"
#endif
static_assert(DLPACK_VERSION == 60, "eagervm interop supports DLPack 0.6 (DLPACK_VERSION 60) only");

namespace eagervm::interop {

inline constexpr int kSupportedDlpackVersion = 60;

// The consumer-visible layout (LP64): a change here would break every
// exchange with a framework built against 0.6.
static_assert(sizeof(void*) != 8 || sizeof(DLTensor) == 48, "DLTensor layout changed");
static_assert(sizeof(void*) != 8 || sizeof(DLManagedTensor) == 64,
              "DLManagedTensor layout changed");
static_assert(offsetof(DLManagedTensor, dl_tensor) == 0, "DLManagedTensor layout changed");

// kDLBool exists from DLPack 0.8 on (not in 0.6's enum); accepted on import
// so that producers built against newer headers can hand over bool tensors.
inline constexpr uint8_t kDLBoolCode = 6;

}  // namespace eagervm::interop

#endif  // EAGERVM_INTEROP_DLPACK_ABI_H_
