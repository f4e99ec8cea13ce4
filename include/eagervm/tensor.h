// Tensor: a cheap handle to asynchronously computed data that carries its own error.
#ifndef EAGERVM_TENSOR_H_
#define EAGERVM_TENSOR_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eagervm/device.h"
#include "eagervm/dtype.h"
#include "eagervm/export.h"
#include "eagervm/scalar.h"
#include "eagervm/shape.h"

namespace eagervm {

class Tensor;
namespace internal {
struct TensorImpl;
struct TensorAccess;  // the runtime's (not installed)
}  // namespace internal

// Declared here for Tensor's friendship; documented with their definitions
// below.
template <typename T>
Tensor FromVector(absl::Span<const T> data, Shape shape, Device device = Device::Cpu());
template <typename T>
Tensor FromVector(const std::vector<T>& data, Shape shape, Device device = Device::Cpu());

// Shape, dtype and device of a tensor.
struct TensorMeta {
  Shape shape;
  DType dtype = DType::kFloat32;
  Device device;
  friend bool operator==(const TensorMeta& a, const TensorMeta& b) {
    return a.shape == b.shape && a.dtype == b.dtype && a.device == b.device;
  }
};
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const TensorMeta& m);

// A handle, like a shared_ptr: thread-safe to copy and drop from any thread
// (including VM threads and static destruction), and one Tensor object may be
// read by several threads at once, but not assigned while others use it.
// Dropping the last handle to a storage releases its memory asynchronously,
// after every queued use; it never blocks.
//
// Unless a method says "blocks", it never waits for the VM and may be called
// from any thread, VM threads (kernels, callbacks) included. Methods marked
// "blocks" wait until the tensor is computed: call them from user threads
// only; on a VM thread (inside a kernel or callback) they return
// FailedPrecondition instead of waiting for themselves. After
// VirtualMachine::Shutdown() has returned, a CPU tensor computed before it
// stays readable (Wait, Item, ToVector, CopyToHost return its final bytes or
// its error, with no VM); a device tensor cannot be read (FailedPrecondition
// saying so: copy it to the CPU before Shutdown); new ops are refused.
class [[nodiscard]] EAGERVM_EXPORT Tensor {
 public:
  Tensor() = default;  // !defined()
  // An error-carrying tensor (!ok()); `status` must not be OK (an OK one
  // becomes an Internal error).
  static Tensor Error(absl::Status status);

  bool defined() const { return impl_ != nullptr; }
  // Never blocks: the tensor has a shape, dtype and device (defined and not
  // an error tensor; a rejected call's tensor has none).
  bool has_meta() const;
  // Never blocks: false iff the call that made this tensor was rejected, or the
  // tensor is undefined (default-constructed or moved-from).
  bool ok() const;
  // Never blocks: the rejection (OK if the call was accepted; runtime errors
  // show in Wait(), not here). The reference is valid while this handle is
  // alive and not assigned to.
  const absl::Status& status() const;
  // Blocks until computed. Returns the rejection, or the runtime error that
  // made the tensor fail; that error then counts as reported (Sync() does not
  // return it again). Wait() is about the ops that made the tensor: a tensor
  // whose bytes were only partly written (an Empty tensor written through a
  // Slice) waits OK, and it is the reads below (Item, ToVector, CopyToHost)
  // and ops reading it that fail, FailedPrecondition "no write covered".
  [[nodiscard]] absl::Status Wait() const;

  // Never block: known when the op is called, before it runs. The references
  // are valid while this handle is alive and not assigned to.
  // A tensor without a meta (undefined, or an error tensor: !ok() from a
  // rejected call) has none of a scalar's answers: dim() is -1, numel() and
  // nbytes() are 0, shape() is [0] (no elements), dtype() float32, device()
  // cpu. Check defined() / ok() first where the difference matters.
  const Shape& shape() const;
  DType dtype() const;
  Device device() const;
  const TensorMeta& meta() const;
  int64_t dim() const { return has_meta() ? static_cast<int64_t>(shape().rank()) : -1; }
  int64_t size(int i) const { return shape()[i]; }
  int64_t numel() const { return shape().numel(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * SizeOf(dtype()); }

  // Blocks. numel() must be 1 and T must match dtype() (else InvalidArgument);
  // errors as Wait(), and FailedPrecondition if no write covered the element.
  template <typename T>
  absl::StatusOr<T> Item() const {
    T value{};
    absl::Status s = ReadItem(&value, DTypeOf<T>());
    if (!s.ok()) return s;
    return value;
  }
  // Blocks. T must match dtype() (else InvalidArgument); errors as Wait(),
  // and FailedPrecondition if no write covered some of its bytes. A large tensor (over 64 MiB) is
  // waited for before its host vector is allocated, so one that carries an error (its own
  // allocation failed) returns the error without asking for that memory; a host vector that cannot
  // be allocated is ResourceExhausted.
  template <typename T>
  absl::StatusOr<std::vector<T>> ToVector() const {
    absl::Status s = CheckHostRead(DTypeOf<T>(), "ToVector");
    if (s.ok() && nbytes() > (size_t{64} << 20)) s = Wait();
    if (!s.ok()) return s;
    using Elem = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
    std::vector<Elem> out;
    try {
      out.resize(static_cast<size_t>(numel()));
    } catch (const std::exception&) {  // bad_alloc, length_error
      return HostVectorRefused(sizeof(Elem));
    }
    s = CopyToHost(out.data(), out.size() * sizeof(Elem));
    if (!s.ok()) return s;
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
      return std::vector<bool>(out.begin(), out.end());
    } else {
      return out;
    }
  }
  // Blocks. Copies the tensor's data to `dst`, which must hold `bytes` ==
  // nbytes() (else InvalidArgument, nothing written) and is written only
  // before this returns: it need not outlive the call. Errors as Wait().
  [[nodiscard]] absl::Status CopyToHost(void* dst, size_t bytes) const;

  // Async copy to `device` (a copy on the same device runs on its current
  // stream; a copy between devices on a CUDA copy stream, docs/cuda.md).
  // Returns at once: it blocks only for back-pressure (VmOptions::max_in_flight),
  // never on a VM thread. A device that is not available is a rejection (an
  // error tensor).
  Tensor To(Device device) const;
  // Views sharing storage (and its dependence) with this tensor. Never block,
  // queue nothing; a bad shape or range is a rejection (an error tensor).
  // Reshape needs a compact tensor (is_contiguous()): a strided view is
  // InvalidArgument (reshape its Contiguous() copy).
  Tensor Reshape(Shape shape) const;
  Tensor Slice(int64_t begin, int64_t end) const;  // along dim 0
  // Strided views (docs/ops.md, "Views"): no copy; writes through them (in-
  // place ops, CopyInto) reach this tensor's storage, and every op accepts
  // them as inputs. Same rules as above (never block, queue nothing; bad
  // arguments are a rejection naming the method and the shape).
  // [begin, end) along `axis` (negative counts from the end).
  Tensor Slice(int axis, int64_t begin, int64_t end) const;
  // Dims reordered: dim i of the view is dim dims[i] of this tensor; `dims`
  // must be a permutation of [0, dim()).
  Tensor Permute(std::vector<int> dims) const;
  // The transpose of a 2-D tensor (Permute({1, 0})); other ranks are rejected.
  Tensor T() const;
  // A broadcast view of `shape` (numpy rules: new leading dims, and dims of
  // extent 1 repeated, with stride 0). Its elements overlap, so it cannot be
  // written: an in-place op or CopyInto into it is InvalidArgument.
  Tensor Expand(Shape shape) const;
  // This tensor if it is compact row-major (is_contiguous()); else a compact
  // copy, queued on the current stream of its device (an op: async).
  Tensor Contiguous() const;
  // Never blocks: true unless this is a strided view whose elements are not
  // compact row-major in its storage (false for a tensor without a meta).
  bool is_contiguous() const;

  // Autograd (eagervm/autograd.h, docs/autograd.md). Never block.
  // Marks this leaf (a tensor no recorded op made: a parameter) as requiring
  // grad, or not, and returns the same handle; ops reading it are then
  // recorded. Only floating tensors; an error tensor for others and for a
  // tensor a recorded op made (one with gradient history: Detach() it
  // first). An op's result made without gradients (no input requires grad,
  // or under NoGradGuard) is a leaf like any other. Call it before other
  // threads use the tensor.
  Tensor RequiresGrad(bool on = true) const;
  // True for a leaf marked RequiresGrad() and for a tensor recorded ops made
  // from one.
  bool requires_grad() const;
  // The gradient autograd::Backward accumulated into this leaf, or an
  // undefined tensor (no Backward reached it yet, or it does not require
  // grad); an error tensor for a tensor an op made (use autograd::Grad). The same storage across
  // Backward calls (accumulated in place), so read it before the next Backward if you keep it.
  Tensor grad() const;
  // This tensor's values with no gradient history (shares storage).
  Tensor Detach() const;

 private:
  friend struct internal::TensorAccess;
  template <typename T>
  friend Tensor FromVector(absl::Span<const T> data, Shape shape, Device device);
  template <typename T>
  friend Tensor FromVector(const std::vector<T>& data, Shape shape, Device device);

  explicit Tensor(std::shared_ptr<internal::TensorImpl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<internal::TensorImpl>& impl() const { return impl_; }
  // FromVector's body: a tensor holding a copy of `bytes` bytes at `data`.
  static Tensor FromHostData(const void* data, size_t bytes, Shape shape, DType dtype,
                             Device device);
  absl::Status ReadItem(void* dst, DType expected) const;
  absl::Status CheckHostRead(DType expected, const char* what) const;
  absl::Status HostVectorRefused(size_t element_bytes) const;  // ToVector's out of memory

  std::shared_ptr<internal::TensorImpl> impl_;
};

// Blocks (user threads only): prints shape, dtype, device and up to 16
// values, or the error.
EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const Tensor& t);

// For code that prefers StatusOr: the tensor, or its rejection. Never blocks.
EAGERVM_EXPORT absl::StatusOr<Tensor> Checked(Tensor t);
// Blocks (user threads only) until these tensors are computed; returns the
// first of their errors (each counts as reported), not other tensors' errors.
// `ts` need only live for the call.
[[nodiscard]] EAGERVM_EXPORT absl::Status Wait(absl::Span<const Tensor> ts);
// Blocks (user threads only) until all work submitted before it (from any
// thread) is done; returns the first runtime error that no Wait/Sync/Item has
// reported yet (it then counts as reported), noting how many more there were.
// FailedPrecondition on a VM thread or after VirtualMachine::Shutdown().
[[nodiscard]] EAGERVM_EXPORT absl::Status Sync();

// ---- Creation ----
// Any thread, VM threads included. Each queues the work that fills the
// tensor on the current stream (Stream::Current) of `device` (default: the
// CPU) and returns at once: it blocks only for back-pressure
// (VmOptions::max_in_flight), and never on a VM thread. Bad arguments are a
// rejection (an error tensor), with nothing queued.
// FromVector copies `data` before it returns: the caller may change or free
// it at once. data.size() must be shape.numel().
template <typename T>
Tensor FromVector(absl::Span<const T> data, Shape shape, Device device) {
  return Tensor::FromHostData(data.data(), data.size() * sizeof(T), shape, DTypeOf<T>(), device);
}
template <typename T>
Tensor FromVector(const std::vector<T>& data, Shape shape, Device device) {
  if constexpr (std::is_same_v<T, bool>) {  // packed bits, no data(): one byte per element
    std::vector<unsigned char> bytes(data.begin(), data.end());
    return Tensor::FromHostData(bytes.data(), bytes.size(), shape, DType::kBool, device);
  } else {
    return FromVector<T>(absl::MakeConstSpan(data), shape, device);
  }
}
// So that FromVector<float>({1, 2, 3}, {3}) is not ambiguous.
template <typename T>
Tensor FromVector(std::initializer_list<T> data, Shape shape, Device device = Device::Cpu()) {
  if constexpr (std::is_same_v<T, bool>) {
    return FromVector<bool>(std::vector<bool>(data), shape, device);
  } else {
    return FromVector<T>(absl::MakeConstSpan(data.begin(), data.size()), shape, device);
  }
}
// Zero-copy wrap of host memory the caller owns, as a CPU tensor. `data`
// (shape.numel() * SizeOf(dtype) bytes) must stay valid, and the caller must
// not write it, until `deleter(data)` runs. If FromBlob is rejected (an error
// tensor), `deleter` is never called and the caller keeps the memory; an
// empty `deleter` means eagervm never frees it.
//
// The deleter runs once, after the last handle is dropped and every queued
// use has finished: on a VM thread (the worker of the CPU stream that was
// current when FromBlob was called; the scheduler thread with
// VmOptions::compute_on_scheduler_thread; the dropping thread in
// VmOptions::synchronous mode), or, after Shutdown(), on the thread that
// drops the last handle, before that drop returns. So it must be safe to run
// on another thread, should not block for long (it holds up its stream), must
// not call blocking eagervm functions (they fail there), and must not throw:
// an exception from it is caught and logged at LogLevel::kError.
EAGERVM_EXPORT Tensor FromBlob(void* data, Shape shape, DType dtype,
                               std::function<void(void*)> deleter);
// Every element `value` (converted to dtype; InvalidArgument if it does not fit).
EAGERVM_EXPORT Tensor Full(Shape shape, Scalar value, DType dtype, Device device = Device::Cpu());
EAGERVM_EXPORT Tensor Zeros(Shape shape, DType dtype, Device device = Device::Cpu());
// A tensor whose storage is allocated by the first instruction that writes it
// (e.g. the output of vm::InstructionsBuilder::Call); queues nothing. Reading
// it before any write is a runtime error. Any thread; never blocks.
EAGERVM_EXPORT Tensor Empty(Shape shape, DType dtype, Device device = Device::Cpu());
// Samples of N(0, 1); a floating dtype (float16 and bfloat16 sampled in
// float32, then rounded). The values depend only on the
// seed and the element index (not on the stream or the order of submission).
EAGERVM_EXPORT Tensor RandomNormal(Shape shape, DType dtype, Device device, uint64_t seed);

}  // namespace eagervm

#endif  // EAGERVM_TENSOR_H_
