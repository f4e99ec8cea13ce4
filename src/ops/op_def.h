// OpDef: one registered op: name, inference, options and kernels.
#ifndef EAGERVM_OPS_OP_DEF_H_
#define EAGERVM_OPS_OP_DEF_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "eagervm/custom_op.h"

namespace eagervm::internal {

// A kernel slot that is set at most once and read without a lock. The
// registry sets it (RegisterKernel, possibly while other threads call the op);
// op calls read it on their hot path. Set() publishes the kernel with a
// release store and Get() reads it with an acquire load, so a caller that
// sees the pointer sees the whole std::function; a caller that does not yet
// see it gets nullptr ("no kernel"), never a half-written one. The kernel is
// never replaced or removed, so the pointer stays valid for the OpDef's life
// (forever: OpDefs are never destroyed).
class KernelSlot {
 public:
  KernelSlot() = default;
  ~KernelSlot() { delete fn_.load(std::memory_order_relaxed); }
  KernelSlot(const KernelSlot&) = delete;
  KernelSlot& operator=(const KernelSlot&) = delete;

  // Any thread, lock-free: the kernel, or nullptr if none is set yet.
  const KernelFn* Get() const { return fn_.load(std::memory_order_acquire); }
  explicit operator bool() const { return Get() != nullptr; }
  // Any thread: sets the kernel; false (and `fn` dropped) if one is set already.
  bool Set(KernelFn fn) {
    auto* p = new KernelFn(std::move(fn));
    const KernelFn* expected = nullptr;
    if (fn_.compare_exchange_strong(expected, p, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      return true;
    }
    delete p;
    return false;
  }
  // Tests only (OpRegistry::UseKernelsOfForTesting, under the registry's
  // lock): replaces the kernel (nullptr: none). The old one is kept for the
  // rest of the process (reachable, so leak checkers stay quiet), so a
  // pointer read earlier stays valid.
  void ReplaceForTesting(const KernelFn* fn) {
    const KernelFn* old =
        fn_.exchange(fn == nullptr ? nullptr : new KernelFn(*fn), std::memory_order_acq_rel);
    if (old != nullptr) RetiredForTesting().push_back(old);
  }

 private:
  static std::vector<const KernelFn*>& RetiredForTesting() {
    static auto* retired = new std::vector<const KernelFn*>();
    return *retired;
  }
  std::atomic<const KernelFn*> fn_{nullptr};
};

struct OpDef {
  std::string name;
  InferFn infer;  // custom ops; built-ins infer in their ops:: function
  OpOptions options;
  MutatedMask mutated_mask;      // OpOptions::mutated_inputs
  MutatedMask overwritten_mask;  // OpOptions::overwritten_inputs (a subset)
  // Bit i: the CPU kernel reads input i as a strided view (its shape and
  // strides in attrs; ops/strided.h). Set once at registration (built-ins).
  uint64_t cpu_strided_inputs = 0;
  // The kernel never blocks (no locks, I/O, waits on other threads): every
  // built-in, and custom ops with OpOptions::small_runs_inline. A call of it
  // may run on the submitting thread of an idle VM (vm/lifecycle/donate.h).
  bool never_blocks = false;
  // Bit i: the kernel reads only the parts of input i its other operands
  // pick (IndexSelect's table). Input i's bytes are left out of the call's
  // cost (the bytes that decide donation, run-ahead and inline runs), which
  // is then the output's and the index's bytes. Set once at registration.
  MutatedMask gathered_mask;
  // A kernel serving every dtype of a device (custom ops) ...
  KernelSlot device_kernel[kNumDeviceTypes];
  // ... or one per (device, dtype) (built-ins). The typed one wins.
  KernelSlot typed_kernel[kNumDeviceTypes][kNumDTypes];
  // Autograd's backward formula of this op (an autograd::internal
  // GradFormula), cached on the first recorded call so recording does not
  // look it up by name. Set at most once, never cleared (formulas are never
  // removed); null: not looked up yet, or the op has none (yet).
  mutable std::atomic<const void*> grad_formula{nullptr};

  // Any thread, lock-free (two acquire loads). nullptr if there is none yet.
  // Kernels are never removed or replaced, so the pointer is stable.
  const KernelFn* FindKernel(DeviceType device, DType dtype) const {
    if (const KernelFn* t = typed_kernel[static_cast<int>(device)][static_cast<int>(dtype)].Get()) {
      return t;
    }
    return device_kernel[static_cast<int>(device)].Get();
  }
};

// The OpDef behind a public OpHandle (ops layer only).
struct OpHandleAccess {
  static OpHandle Make(const OpDef* def) { return OpHandle(def); }
  static const OpDef& Def(const OpHandle& h) { return *h.def_; }
};

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OP_DEF_H_
