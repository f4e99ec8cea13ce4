#include "vm/policies/barrier_policy.h"

#include <exception>

#include "base/str_cat.h"
#include "vm/vm_context.h"

namespace eagervm::vm {

void BarrierPolicy::Compute(VmStream*) {
  if (!cb_) return;
  absl::Status failure;
  try {
    cb_();
    return;
  } catch (const std::exception& ex) {
    failure = absl::InternalError(base::Cat(name_, ": the callback threw: ", ex.what()));
  } catch (...) {
    failure = absl::InternalError(base::Cat(name_, ": the callback threw a non-std::exception"));
  }
  context_->RecordError(std::make_shared<ErrorRecord>(std::move(failure)));
}

}  // namespace eagervm::vm
