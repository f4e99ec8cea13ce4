// The kernel ABI: what a kernel sees when it runs (KernelContext, its
// operands and attributes) and its signature (KernelFn). Shared by the VM,
// which runs kernels, and by whoever writes one: built-in kernels and custom
// ops (registration is in eagervm/custom_op.h, which includes this header).
#ifndef EAGERVM_KERNEL_H_
#define EAGERVM_KERNEL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eagervm/export.h"
#include "eagervm/scalar.h"
#include "eagervm/tensor.h"

namespace eagervm {

using AttrValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, DType>;
using Attrs = absl::flat_hash_map<std::string, AttrValue>;

namespace vm {
class BlobObject;
}  // namespace vm

namespace internal {
struct KernelArgs;
struct KernelContextAccess;

// Which inputs of an op call its kernel writes, bit i for input i: the one
// form, inside the runtime, of OpOptions::mutated_inputs (and, as a subset,
// of overwritten_inputs). OpDef, vm::KernelCall, KernelArgs and
// KernelContext hold one. Inputs at 64 and up are never written (RegisterOp
// takes indices in [0, 64)). Not API, like Operand below.
struct MutatedMask {
  uint64_t bits = 0;

  constexpr bool has(size_t input) const { return input < 64 && ((bits >> input) & 1); }
  // A call with `num_inputs` inputs has every input of the mask.
  constexpr bool fits(size_t num_inputs) const {
    return num_inputs >= 64 || (bits >> num_inputs) == 0;
  }
  constexpr bool empty() const { return bits == 0; }
  void set(size_t input) { bits |= uint64_t{1} << input; }  // input < 64
};

// One operand of a kernel call as the runtime records it. Not API: the
// layout is the runtime's own and may change in any release (kernels are
// built against the headers of the release they run with). It is here so
// that KernelContext's accessors are inline: a kernel reads its operands
// without a call. Read it through KernelContext.
struct Operand {
  Operand() = default;
  Operand(vm::BlobObject* b, const TensorMeta* m, int64_t off, void* d)
      : blob(b), meta(m), offset(off), data(d) {}

  // Not owned: the storage outlives every instruction that names it (its
  // release is ordered after them; docs/architecture.md, "Who keeps a
  // storage alive").
  vm::BlobObject* blob = nullptr;
  // Not owned either, and never null in a kernel call: the storage's own
  // meta for a tensor that is its storage's whole extent, else a copy kept
  // by the instruction (or the graph plan) for as long as it runs. A
  // pointer, not a copy: an op call copies 8 bytes per operand, not 88.
  const TensorMeta* meta = nullptr;
  int64_t offset = 0;    // bytes from the start of the storage (views)
  void* data = nullptr;  // resolved just before the kernel runs
};
}  // namespace internal

// The view a kernel has of its instruction. Valid only during the kernel call,
// on the VM thread that runs it; never store it.
class EAGERVM_EXPORT KernelContext {
 public:
  int num_inputs() const { return num_inputs_; }
  int num_outputs() const { return num_outputs_; }
  // 0 <= i < num_inputs() (num_outputs()).
  const TensorMeta& input_meta(int i) const { return *inputs_[i].meta; }
  const TensorMeta& output_meta(int i) const { return *outputs_[i].meta; }
  // Contiguous data; nullptr if T does not match the dtype or i is out of range.
  template <typename T>
  const T* input(int i) const {
    return InRange(i, num_inputs_) ? Typed<const T>(inputs_[i].data, *inputs_[i].meta) : nullptr;
  }
  // Allocated by the runtime before the call.
  template <typename T>
  T* output(int i) {
    return InRange(i, num_outputs_) ? Typed<T>(outputs_[i].data, *outputs_[i].meta) : nullptr;
  }
  // Only for inputs declared in OpOptions::mutated_inputs (else nullptr).
  template <typename T>
  T* mutable_input(int i) {
    void* p = raw_mutable_input(i);
    return p != nullptr ? Typed<T>(p, *inputs_[i].meta) : nullptr;
  }
  // nullptr when i is out of range (or, for raw_mutable_input, the input is
  // not declared mutated).
  const void* raw_input(int i) const { return InRange(i, num_inputs_) ? inputs_[i].data : nullptr; }
  void* raw_output(int i) { return InRange(i, num_outputs_) ? outputs_[i].data : nullptr; }
  void* raw_mutable_input(int i) {
    if (!InRange(i, num_inputs_) || !mutated_mask_.has(static_cast<size_t>(i))) return nullptr;
    return inputs_[i].data;
  }

  // Scratch memory from the stream's allocator, freed after the kernel returns.
  // The kernel's thread. Out of memory, it waits up to VmOptions::oom_wait_ms
  // for other streams to free some, then returns ResourceExhausted.
  absl::StatusOr<void*> AllocateTemp(size_t bytes);
  const Attrs& attrs() const;
  void* cuda_stream() const;  // cudaStream_t on CUDA, nullptr on CPU
  // Scalar arguments of built-in ops (e.g. MulScalarInplace's factor).
  const Scalar& scalar(int i) const;

 private:
  friend struct internal::KernelContextAccess;  // the runtime and its backends
  // The runtime makes one per kernel call (KernelContextAccess::Make), from
  // the instruction's operands.
  KernelContext(internal::KernelArgs* args, internal::Operand* inputs, int num_inputs,
                internal::Operand* outputs, int num_outputs, internal::MutatedMask mutated_mask)
      : args_(args),
        inputs_(inputs),
        outputs_(outputs),
        num_inputs_(num_inputs),
        num_outputs_(num_outputs),
        mutated_mask_(mutated_mask) {}
  static bool InRange(int i, int n) { return static_cast<unsigned>(i) < static_cast<unsigned>(n); }
  template <typename T>
  static T* Typed(const void* p, const TensorMeta& meta) {
    if (meta.dtype != DTypeOf<std::remove_const_t<T>>()) return nullptr;
    return static_cast<T*>(const_cast<void*>(p));
  }
  internal::KernelArgs* args_;
  internal::Operand* inputs_;
  internal::Operand* outputs_;
  int num_inputs_;
  int num_outputs_;
  internal::MutatedMask mutated_mask_;
};

using KernelFn = std::function<absl::Status(KernelContext&)>;  // stored once; never copied per op

}  // namespace eagervm

#endif  // EAGERVM_KERNEL_H_
