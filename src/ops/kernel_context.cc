// KernelContext: a kernel's view of its OpCall instruction (vm::KernelArgs).
// In the ops layer, which kernels may depend on; the data is the VM's.
#include "base/str_cat.h"
#include "eagervm/custom_op.h"
#include "vm/kernel_args.h"

namespace eagervm {

absl::StatusOr<void*> KernelContext::AllocateTemp(size_t bytes) {
  if (internal::TempRegion* r = args_->temp_region; r != nullptr) {
    const size_t aligned = (bytes + r->alignment - 1) / r->alignment * r->alignment;
    r->requested += aligned;
    if (r->base != nullptr && r->used + aligned <= r->size) {
      void* p = r->base + r->used;
      r->used += aligned;
      return p;
    }
    if (r->strict) {
      return absl::ResourceExhaustedError(
          "AllocateTemp: beyond the graph's planned temporaries while a device graph is recorded");
    }
  }
  absl::StatusOr<void*> p = args_->stream->allocator()->Allocate(bytes);
  if (p.ok()) args_->temps.push_back({*p, bytes});
  return p;
}

const Attrs& KernelContext::attrs() const {
  static const Attrs* empty = new Attrs();
  return args_->attrs ? *args_->attrs : *empty;
}

void* KernelContext::cuda_stream() const {
  return args_->stream != nullptr ? args_->stream->policy()->native_handle() : nullptr;
}

const Scalar& KernelContext::scalar(int i) const { return args_->scalars[i]; }

}  // namespace eagervm
