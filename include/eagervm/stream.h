// Streams: in-order queues of work on one device.
#ifndef EAGERVM_STREAM_H_
#define EAGERVM_STREAM_H_

#include <iosfwd>

#include "eagervm/device.h"
#include "eagervm/export.h"

namespace eagervm {

// Names compute stream `index` of a device. Work on one stream runs in
// submission order; order across streams follows data dependences only.
// A value type: cheap to copy, thread-safe. The underlying stream (and its
// worker thread) is created on first use; an index >= VmOptions::cpu_streams
// makes ops on it fail with InvalidArgument.
class EAGERVM_EXPORT Stream {
 public:
  Stream(Device device, int index) : device_(device), index_(index) {}
  static Stream Default(Device d) { return Stream(d, 0); }
  static Stream Current(Device d);  // this thread's current stream for d

  Device device() const { return device_; }
  int index() const { return index_; }
  // The backend handle: cudaStream_t for CUDA streams, nullptr for CPU streams
  // (or for a stream not created yet).
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
// Scopes nest LIFO; not copyable or movable.
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
