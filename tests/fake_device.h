// A fake accelerator for tests without a GPU, registered for cuda:0 over the
// built-in backend (vm::OverrideBackendForTesting): its "device memory" is
// host memory, its streams run on the scheduler thread, copy with memcpy and
// order themselves on the "device" (OrdersOnDevice), as CUDA streams do; it
// runs synchronously, so launched means finished. No op kernel may run on it
// (in a CUDA build the real CUDA kernels are registered for kCUDA): copies
// and host accesses only.
#ifndef EAGERVM_TESTS_FAKE_DEVICE_H_
#define EAGERVM_TESTS_FAKE_DEVICE_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <typeinfo>

#include "base/thread_role.h"
#include "eagervm/eagervm.h"
#include "memory/system_allocator.h"
#include "vm/blob_object.h"
#include "vm/engine/instruction.h"
#include "vm/policies/device_copy_policy.h"
#include "vm/streams/backends.h"
#include "vm/streams/stream_policy.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::testing {

inline const Device kFake = Device::Cuda(0);

// ReserveHostStaging calls seen, by the calling thread's role, and bytes.
inline std::atomic<int> g_reserves_on_user{0}, g_reserves_elsewhere{0};
inline std::atomic<int64_t> g_reserved_bytes{0};

class FakeAccelerator final : public vm::StreamPolicy {
 public:
  explicit FakeAccelerator(Device d) : device_(d), memory_(d), host_(Device::Cpu()) {}
  Device device() const override { return device_; }
  memory::Allocator* allocator() override { return &memory_; }
  memory::Allocator* host_allocator() override { return &host_; }
  bool OnSchedulerThread() const override { return true; }
  bool OrdersOnDevice(const vm::Instruction& src, const vm::Instruction& dst) const override {
    return typeid(*src.stream()->policy()) == typeid(FakeAccelerator) &&
           !src.policy()->TouchesHostMemory() && !dst.policy()->TouchesHostMemory();
  }
  // Synchronous: launched is finished, so the device waits are met already.
  void Run(vm::VmStream* stream, vm::Instruction* instr) override {
    instr->device_waits.clear();
    instr->policy()->Compute(stream);
  }
  bool QueryDone(const vm::Instruction*) const override { return true; }
  absl::Status CopyAcrossDevices(vm::VmStream*, const vm::DeviceCopy& c) override {
    memory::Allocator* a = c.dst->device().is_cpu() ? &host_ : &memory_;
    absl::Status s = c.dst->EnsureAllocated(a);
    if (!s.ok()) return s;
    if (c.bytes > 0) {
      std::memcpy(static_cast<char*>(c.dst->data()) + c.dst_offset,
                  static_cast<const char*>(c.src->data()) + c.src_offset, c.bytes);
    }
    return absl::OkStatus();
  }
  void ReserveHostStaging(size_t bytes) override {
    if (base::CurrentThreadRole() == base::ThreadRole::kUser) {
      g_reserves_on_user.fetch_add(1);
    } else {
      g_reserves_elsewhere.fetch_add(1);
    }
    g_reserved_bytes.fetch_add(static_cast<int64_t>(bytes));
  }

 private:
  Device device_;
  memory::SystemAllocator memory_;
  memory::SystemAllocator host_;
};

// Registers the fake for cuda:0; call from a namespace-scope initialiser of
// the test file, before anything creates the VM.
inline bool InstallFakeAccelerator() {
  vm::OverrideBackendForTesting(
      DeviceType::kCUDA, [] { return 1; },
      [](Stream s, vm::VmContext&) -> absl::StatusOr<std::unique_ptr<vm::StreamPolicy>> {
        return std::unique_ptr<vm::StreamPolicy>(new FakeAccelerator(s.device()));
      });
  return true;
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_FAKE_DEVICE_H_
