// StreamPolicy: the per-device backend of a stream. CPU and CUDA implement it;
// the engine only talks to this interface.
#ifndef EAGERVM_VM_STREAM_POLICY_H_
#define EAGERVM_VM_STREAM_POLICY_H_

#include "absl/status/status.h"
#include "eagervm/device.h"
#include "memory/allocator.h"

namespace eagervm::vm {

class Instruction;
class VmStream;
struct DeviceCopy;

class StreamPolicy {
 public:
  virtual ~StreamPolicy() = default;
  virtual Device device() const = 0;
  virtual memory::Allocator* allocator() = 0;
  // True if instructions run inline on the scheduler thread at dispatch.
  virtual bool OnSchedulerThread() const = 0;
  // Runs the instruction's compute on the stream's thread and marks it done
  // (for asynchronous devices: launched, with an event recorded where the host
  // must observe completion).
  virtual void Run(VmStream* stream, Instruction* instr) = 0;
  // Scheduler thread: is the instruction finished as far as its successors on
  // other streams and the release of its memory are concerned?
  virtual bool QueryDone(const Instruction* instr) const = 0;
  virtual void* native_handle() const { return nullptr; }
  // The stream's thread, inside Run(): copies `copy` between this device and
  // another (DeviceCopyPolicy), allocating the destination if needed. Only
  // the copy streams of devices with their own memory implement it.
  virtual absl::Status CopyAcrossDevices(VmStream* stream, const DeviceCopy& copy) {
    return absl::InternalError("a copy between devices ran on a stream that cannot copy");
  }
  // True if this stream's device can order `dst` (one of its instructions)
  // after `src` (of another stream) by itself, without the host waiting
  // (CUDA: cudaStreamWaitEvent). The engine then satisfies the edge when
  // `src` is *dispatched* (as within one stream) and records it in
  // dst's Instruction::device_waits, which Run() must honour. Only sound when
  // both streams run on the scheduler thread, so that dispatched means
  // launched, and when neither instruction touches host memory outside the
  // device's order.
  virtual bool OrdersOnDevice(const Instruction& src, const Instruction& dst) const { return false; }
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAM_POLICY_H_
