// InstructionPolicy: what an instruction does. Policies are constructed in the
// instruction's inline buffer (no heap per op) and destroyed at retirement.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_ENGINE_INSTRUCTION_POLICY_H_
#define EAGERVM_VM_ENGINE_INSTRUCTION_POLICY_H_

#include <memory>

#include "absl/status/status.h"
#include "base/small_vector.h"
#include "vm/blob_object.h"

namespace eagervm::vm {

class VmStream;

// One storage an instruction touches, and how.
struct Access {
  BlobObject* blob;
  bool write;
};
using AccessList = base::SmallVector<Access, 4>;

class InstructionPolicy {
 public:
  virtual ~InstructionPolicy() = default;
  virtual const char* name() const = 0;
  // The storages read and written; the engine links dependence edges from them
  // on the scheduler thread. Called once, at intake.
  virtual void GetAccesses(AccessList* out) const = 0;
  // Barriers are not linked: they run on the scheduler thread once every
  // instruction received before them has been retired.
  virtual bool IsBarrier() const { return false; }
  // Bytes the compute touches if it is short and never blocks, so that the
  // scheduler may run it itself (VmOptions::inline_max_bytes); kNotInline
  // otherwise (the default: user callbacks and kernels may block).
  static constexpr size_t kNotInline = ~size_t{0};
  virtual size_t InlineBytes() const { return kNotInline; }
  // True if the compute reads or writes host memory outside the device's own
  // order (host callbacks, copies between devices): a device that orders
  // instructions itself (StreamPolicy::OrdersOnDevice) must wait on the host.
  virtual bool TouchesHostMemory() const { return false; }
  // Runs on the stream's thread (or the scheduler, for barriers and inline
  // streams). Never throws: failures are recorded as data on the outputs.
  virtual void Compute(VmStream* stream) = 0;

  // True once the policy's destructor would do nothing (it holds no heap
  // block and no reference any more): InstructionPool::Recycle then reuses
  // its storage without calling it, as C++ allows when nothing depends on a
  // destructor's effects. An op call's destructor is ~40 instructions on the
  // scheduler per op otherwise. Set by the policy (an op call:
  // when it is built, cleared by its compute if a kernel temporary took a
  // heap block); read at retirement, which is ordered after both.
  bool destructor_is_noop() const { return destructor_is_noop_; }

 protected:
  bool destructor_is_noop_ = false;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ENGINE_INSTRUCTION_POLICY_H_
