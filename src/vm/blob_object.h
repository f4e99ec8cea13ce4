// BlobObject: the runtime's storage of a tensor (shared by its views). Memory
// is allocated lazily by the first instruction that writes it, from the
// allocator of the stream it runs on, and freed by a ReleaseTensor instruction
// in that stream's order (or by the destructor after shutdown).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_BLOB_OBJECT_H_
#define EAGERVM_VM_BLOB_OBJECT_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "eagervm/device.h"
#include "eagervm/tensor.h"
#include "memory/allocator.h"
#include "vm/engine/dependence.h"
#include "vm/error_record.h"
#include "vm/lifecycle/fork_guard.h"
#include "vm/written_ranges.h"

namespace eagervm::vm {

class VmStream;

// Three groups of fields on separate cache lines (below), by padding rather
// than alignas(64): an over-aligned type makes make_shared allocate through
// glibc's memalign path, which bypasses the per-thread cache and, freed on
// another thread (the VM drops the last reference), fragments the arena:
// ~700 instructions per out-of-place op on the user thread.
class BlobObject {
 public:
  BlobObject(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {}
  // The storage of a fresh tensor of `meta` (contiguous, offset 0): kernels
  // read that tensor's meta here (meta(), Operand::meta), with no copy per op.
  explicit BlobObject(const TensorMeta& meta)
      : nbytes_(static_cast<size_t>(meta.shape.numel()) * SizeOf(meta.dtype)),
        device_(meta.device),
        meta_(meta),
        has_meta_(true) {}
  // Wraps memory the user owns; `deleter(data)` runs when the storage is
  // released. An empty storage may come with a null `data`: it is still
  // allocated (a valid empty tensor), and its deleter gets the null back.
  BlobObject(void* data, size_t nbytes, Device device, std::function<void(void*)> deleter)
      : nbytes_(nbytes),
        device_(device),
        data_(data != nullptr ? data : EmptyUserData()),
        deleter_(std::move(deleter)) {}
  ~BlobObject() {
    if (fork_generation_ == ForkGeneration()) [[likely]]
      Free();  // else: the parent's memory and allocator, left as they are
  }
  BlobObject(const BlobObject&) = delete;
  BlobObject& operator=(const BlobObject&) = delete;

  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // ForkGeneration() at creation: another value means the storage belongs to
  // the parent of a fork() (its VM has no threads here): never touched again.
  uint32_t fork_generation() const { return fork_generation_; }
  // The meta it was made for, or null (made from a size). Immutable.
  const TensorMeta* meta() const { return has_meta_ ? &meta_ : nullptr; }

  // --- VM threads, ordered by the blob's dependences ---
  void* data() const { return data_; }
  bool allocated() const { return data_ != nullptr; }
  absl::Status EnsureAllocated(memory::Allocator* allocator);
  void Free();
  bool has_user_deleter() const { return static_cast<bool>(deleter_); }
  const ErrorPtr& error() const { return error_; }
  // Stores only on change: every successful op "heals" its outputs, and an
  // unconditional store would dirty this line on each of them.
  void set_error(ErrorPtr e) {
    if (e != error_) error_ = std::move(e);
  }
  // set_error(nullptr) without making and dropping a null ErrorPtr.
  void clear_error() {
    if (error_ != nullptr) [[unlikely]]
      error_.reset();
  }
  // Partial writes. A write of bytes [begin, end) succeeded. One that covers
  // the whole storage heals an error it carried and makes every byte
  // readable; one that covers part of it heals nothing (the error stays: the
  // other bytes are still what the failure left), and on a storage it just
  // allocated starts tracking which bytes were written (WrittenRanges).
  // `fresh`: this write allocated the storage.
  void NoteWritten(size_t begin, size_t end, bool fresh) {
    if (begin == 0 && end >= nbytes_) [[likely]]
      return NoteWrittenWhole();
    if (fresh) partial_ = std::make_unique<WrittenRanges>();
    if (partial_ != nullptr && partial_->Add(begin, end, nbytes_)) partial_.reset();
  }
  void NoteWrittenWhole() {
    clear_error();
    if (partial_ != nullptr) [[unlikely]]
      partial_.reset();
  }
  bool partly_written() const { return partial_ != nullptr; }
  // Whether every byte of [begin, end) holds a written value (allocated()
  // aside): false only for bytes of a partly written storage no write covered.
  bool Written(size_t begin, size_t end) const {
    return partial_ == nullptr || partial_->Covers(begin, end);
  }

  // --- graph capture (the capturing thread) ---
  // What a storage is to the Graph::Capture that made it. kInput: a symbolic
  // input, bound per run to a caller's tensor, which may be a view of another
  // input or of a parameter, so ops treat it as possibly overlapping any
  // bound storage. kIntermediate: made inside the captured function (the
  // plan owns it; nothing else can alias it). kNone: a real storage (a
  // parameter, when a capture uses it).
  enum class CaptureRole : uint8_t { kNone, kInput, kIntermediate };
  CaptureRole capture_role() const { return capture_role_; }
  void set_capture_role(CaptureRole r) { capture_role_ = r; }

  // --- scheduler thread only ---
  Dependence& dependence() { return dependence_; }

  // --- user threads (submission order hints) ---
  // The stream of the first write ever submitted: where memory comes from and
  // where the release goes.
  VmStream* producer() const { return producer_.load(std::memory_order_acquire); }
  // Stores only on change: every op writing this storage calls it, and a
  // store (or a CAS) to an unchanged value still takes the line exclusive.
  void NoteWrite(VmStream* s) {
    if (producer_.load(std::memory_order_acquire) == nullptr) {
      VmStream* expected = nullptr;
      producer_.compare_exchange_strong(expected, s, std::memory_order_acq_rel);
    }
    if (last_writer_stream_.load(std::memory_order_relaxed) != s) {
      last_writer_stream_.store(s, std::memory_order_release);
    }
  }
  // Where the last write was submitted: reading there needs no cross-stream edge.
  VmStream* last_writer_stream() const {
    return last_writer_stream_.load(std::memory_order_acquire);
  }

 private:
  static void* EmptyUserData();  // stands for a user's null pointer to no bytes

  const size_t nbytes_;
  const Device device_;
  const uint32_t fork_generation_ = ForkGeneration();
  const TensorMeta meta_;
  const bool has_meta_ = false;
  CaptureRole capture_role_ = CaptureRole::kNone;
  void* data_ = nullptr;
  memory::Allocator* allocator_ = nullptr;
  std::function<void(void*)> deleter_;
  ErrorPtr error_;
  std::unique_ptr<WrittenRanges> partial_;  // null: no partly written storage
  // Submitting threads write the hints below on every op, the scheduler the
  // dependence, and the thread running the kernels reads the fields above:
  // a line's worth of padding between each two groups keeps them on separate
  // cache lines whatever the object's address, so none steals another's.
  [[maybe_unused]] char pad0_[64];
  std::atomic<VmStream*> producer_{nullptr};
  std::atomic<VmStream*> last_writer_stream_{nullptr};
  [[maybe_unused]] char pad1_[64];
  Dependence dependence_;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_BLOB_OBJECT_H_
