// Streams: in-order queues of work on one device.
#ifndef EAGERVM_STREAM_H_
#define EAGERVM_STREAM_H_

#include <iosfwd>

#include "eagervm/device.h"
#include "eagervm/export.h"

namespace eagervm {

// Names compute stream `index` of a device. Work on one stream runs in
// submission order; order across streams follows data dependences only.
// A value type: cheap to copy, any thread, never blocks (except as noted for
// native_handle). The underlying stream (and its worker thread) is created on
// first use; an index >= VmOptions::cpu_streams makes ops on it fail with
// InvalidArgument. Two indices exist on every device whatever cpu_streams
// says: 60, where graph mode runs its plans (docs/graph.md, "The stream a
// graph runs on"), and 61, the communication stream (docs/distributed.md).
// Ops put there queue with those plans or collectives.
class EAGERVM_EXPORT Stream {
 public:
  Stream(Device device, int index) : device_(device), index_(index) {}
  static Stream Default(Device d) { return Stream(d, 0); }
  // The calling thread's current stream for `d` (StreamScope; else index 0).
  static Stream Current(Device d);

  Device device() const { return device_; }
  int index() const { return index_; }
  // The backend handle: a cudaStream_t for CUDA streams, nullptr for CPU
  // streams. Any thread, VM threads included (a kernel may ask). Creates the
  // VM and the stream if they do not exist yet, as the first op on it would
  // (so it may block for that long, never for queued work); nullptr if the
  // stream cannot be created (index out of range, device not available, or
  // the VM was shut down before the stream was created). The handle stays
  // valid while the VM runs. Work a user thread enqueues on it is not ordered
  // with the work eagervm has queued on the stream but not launched yet; a
  // kernel's (KernelContext::cuda_stream) is.
  void* native_handle() const;

  friend bool operator==(const Stream& a, const Stream& b) {
    return a.device_ == b.device_ && a.index_ == b.index_;
  }
  friend bool operator!=(const Stream& a, const Stream& b) { return !(a == b); }

 private:
  Device device_;
  int index_;
};

EAGERVM_EXPORT std::ostream& operator<<(std::ostream& os, const Stream& s);

// Sets the current stream of `s.device()` for this thread until destroyed.
// Scopes nest LIFO; not copyable or movable. Affects the calling thread only,
// and must be destroyed on the thread that created it. Never blocks.
class EAGERVM_EXPORT StreamScope {
 public:
  explicit StreamScope(Stream s);
  ~StreamScope();
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  Stream previous_;
};

}  // namespace eagervm

#endif  // EAGERVM_STREAM_H_
