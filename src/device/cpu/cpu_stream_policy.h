// CpuStreamPolicy: a CPU compute stream. Its compute runs on the stream's
// worker (or the scheduler thread); "done" means finished.
#ifndef EAGERVM_DEVICE_CPU_CPU_STREAM_POLICY_H_
#define EAGERVM_DEVICE_CPU_CPU_STREAM_POLICY_H_

#include <memory>

#include "vm/streams/stream_policy.h"

namespace eagervm::device {

class CpuStreamPolicy final : public vm::StreamPolicy {
 public:
  CpuStreamPolicy(std::unique_ptr<memory::Allocator> allocator, bool on_scheduler_thread)
      : allocator_(std::move(allocator)), on_scheduler_thread_(on_scheduler_thread) {}
  Device device() const override { return Device::Cpu(); }
  memory::Allocator* allocator() override { return allocator_.get(); }
  bool OnSchedulerThread() const override { return on_scheduler_thread_; }
  void Run(vm::VmStream* stream, vm::Instruction* instr) override;
  bool QueryDone(const vm::Instruction* instr) const override;
  bool RunIsCompute() const override { return true; }

 private:
  std::unique_ptr<memory::Allocator> allocator_;
  bool on_scheduler_thread_;
};

}  // namespace eagervm::device

#endif  // EAGERVM_DEVICE_CPU_CPU_STREAM_POLICY_H_
