// A fake accelerator for tests without a GPU, registered for cuda:0 over the
// built-in backend (vm::OverrideBackendForTesting). It is asynchronous like a
// GPU, so that the VM's ordering and lifetime bugs show without one:
//  - each stream has a "device" thread that executes the stream's work in
//    launch order, after a random delay of up to ~100 us per item: Run() (on
//    the scheduler thread) only enqueues, so launched is not finished;
//  - a cross-stream edge the VM orders on the device (OrdersOnDevice) becomes
//    a counter-based fake event: the item waits on its device thread until
//    the source stream's completed counter passed the source's launch;
//  - QueryDone() reads the completed counter; the device thread notifies the
//    scheduler after each item (as the CUDA backend's event poller does);
//  - device memory comes from a per-stream allocator that fills freed blocks
//    with 0xFF and hands them out again (same size, last freed first), so a
//    read after an early release sees NaNs instead of the old values; it
//    caches, reports stats and honours VmOptions::cuda_memory_limit (per
//    stream) like the CPU's caching allocator, so the suite's allocator
//    cases run on it.
// Its "device memory" is host memory. Ops run the CPU kernels on it
// (OpRegistry::UseKernelsOfForTesting), on the device thread.
#ifndef EAGERVM_TESTS_FAKE_DEVICE_H_
#define EAGERVM_TESTS_FAKE_DEVICE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <typeinfo>
#include <utility>
#include <vector>

#include "base/notifier.h"
#include "base/thread_role.h"
#include "eagervm/eagervm.h"
#include "ops/op_registry.h"
#include "vm/blob_object.h"
#include "vm/engine/instruction.h"
#include "vm/policies/device_copy_policy.h"
#include "vm/streams/backends.h"
#include "vm/streams/stream_policy.h"
#include "vm/streams/vm_stream.h"
#include "vm/vm_context.h"

namespace eagervm::testing {

inline const Device kFake = Device::Cuda(0);

// ReserveHostStaging calls seen, by the calling thread's role, and bytes.
inline std::atomic<int> g_reserves_on_user{0}, g_reserves_elsewhere{0};
inline std::atomic<int64_t> g_reserved_bytes{0};
// Blocks the fake allocators handed out again after a free.
inline std::atomic<int64_t> g_fake_reused_blocks{0};

// True on a fake device thread.
inline bool& OnFakeDeviceThread() {
  thread_local bool on = false;
  return on;
}

// Freed blocks are filled with 0xFF (NaN for floats) and reused by the next
// request of the same size (last freed first). Like the CPU's caching
// allocator it counts what it holds from the system (in use + cached)
// against `limit` (0: none): a request past it first returns the cache to
// the system (an OOM recovery), then fails with ResourceExhausted. Reports
// in use, peak, reserved, system allocations, cache hits and misses.
// Thread-safe.
class PoisoningAllocator final : public memory::Allocator {
 public:
  explicit PoisoningAllocator(Device d, int64_t limit = 0) : device_(d), limit_(limit) {}
  ~PoisoningAllocator() override { Shrink(); }
  absl::StatusOr<void*> Allocate(size_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      g_fake_reused_blocks.fetch_add(1);
      ++stats_.cache_hits;
      cached_ -= static_cast<int64_t>(bytes);
      Use(bytes);
      return p;
    }
    ++stats_.cache_misses;
    const auto n = static_cast<int64_t>(bytes);
    if (limit_ > 0 && stats_.bytes_in_use + cached_ + n > limit_) {
      if (cached_ > 0 && stats_.bytes_in_use + n <= limit_) {
        ShrinkLocked();
        ++stats_.oom_recoveries;
      } else {
        ++stats_.oom_failures;
        return absl::ResourceExhaustedError("fake device: out of memory: asked for " +
                                            std::to_string(bytes) + " bytes with " +
                                            std::to_string(stats_.bytes_in_use) +
                                            " in use and a limit of " + std::to_string(limit_));
      }
    }
    void* p = std::malloc(bytes > 0 ? bytes : 1);
    if (p == nullptr) {
      ++stats_.oom_failures;
      return absl::ResourceExhaustedError("fake device: malloc failed");
    }
    ++stats_.system_allocs;
    Use(bytes);
    return p;
  }
  void Deallocate(void* ptr, size_t bytes) override {
    if (bytes > 0) std::memset(ptr, 0xFF, bytes);
    std::lock_guard<std::mutex> lock(mu_);
    free_[bytes].push_back(ptr);
    stats_.bytes_in_use -= static_cast<int64_t>(bytes);
    cached_ += static_cast<int64_t>(bytes);
  }
  void Shrink() override {
    std::lock_guard<std::mutex> lock(mu_);
    ShrinkLocked();
  }
  MemoryStats GetStats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    MemoryStats s = stats_;
    s.device = device_;
    s.bytes_reserved = stats_.bytes_in_use + cached_;
    return s;
  }

 private:
  void Use(size_t bytes) {
    stats_.bytes_in_use += static_cast<int64_t>(bytes);
    stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  }
  void ShrinkLocked() {
    for (auto& [bytes, blocks] : free_) {
      for (void* p : blocks) std::free(p);
    }
    free_.clear();
    cached_ = 0;
  }

  const Device device_;
  const int64_t limit_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;
  MemoryStats stats_;
  int64_t cached_ = 0;
};

class FakeAccelerator final : public vm::StreamPolicy {
 public:
  FakeAccelerator(Device d, int stream_index, vm::VmContext* context)
      : device_(d),
        context_(context),
        memory_(d, context->options().cuda_memory_limit),
        host_(Device::Cpu()),
        rng_(stream_index + 1) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeAccelerator() override { Close(); }

  Device device() const override { return device_; }
  memory::Allocator* allocator() override { return &memory_; }
  memory::Allocator* host_allocator() override { return &host_; }
  bool OnSchedulerThread() const override { return true; }
  bool OrdersOnDevice(const vm::Instruction& src, const vm::Instruction& dst) const override {
    return typeid(*src.stream()->policy()) == typeid(FakeAccelerator) &&
           !src.policy()->TouchesHostMemory() && !dst.policy()->TouchesHostMemory();
  }
  // Launches: the device thread runs the instruction later, after the fake
  // events of its device waits.
  void Run(vm::VmStream* stream, vm::Instruction* instr) override {
    Item item;
    for (const vm::InstrRef& ref : instr->device_waits) {
      if (ref.instr == nullptr || !ref.instr->IsAlive(ref)) continue;  // released: completed
      auto* src = dynamic_cast<FakeAccelerator*>(ref.instr->stream()->policy());
      if (src == nullptr || src == this) continue;
      item.waits.emplace_back(src, ref.instr->policy_word);
    }
    instr->device_waits.clear();
    instr->policy_word = ++launched_;
    item.seq = instr->policy_word;
    vm::InstructionPolicy* policy = instr->policy();
    item.work = [policy, stream] { policy->Compute(stream); };
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(item));
    }
    cv_.notify_one();
  }
  bool QueryDone(const vm::Instruction* instr) const override {
    return completed_.load(std::memory_order_acquire) >= instr->policy_word;
  }
  // On the device thread (inside the copy instruction's Compute).
  absl::Status CopyAcrossDevices(vm::VmStream*, const vm::DeviceCopy& c) override {
    memory::Allocator* a =
        c.dst->device().is_cpu() ? static_cast<memory::Allocator*>(&host_) : &memory_;
    absl::Status s = c.dst->EnsureAllocated(a);
    if (!s.ok()) return s;
    if (c.bytes > 0) {
      std::memmove(static_cast<char*>(c.dst->data()) + c.dst_offset,
                   static_cast<const char*>(c.src->data()) + c.src_offset, c.bytes);
    }
    return absl::OkStatus();
  }
  // On the device thread (graph mode's host-write nodes: a captured FromVector).
  absl::Status CopyFromHost(void* dst, const void* src, size_t bytes) override {
    if (bytes > 0) std::memcpy(dst, src, bytes);
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
  // After the scheduler stopped: finishes the queued work, stops the thread.
  void Close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      stop_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  struct Item {
    uint64_t seq = 0;
    std::vector<std::pair<const FakeAccelerator*, uint64_t>> waits;  // fake events
    std::function<void()> work;
  };

  void Loop() {
    base::SetCurrentThreadRole(base::ThreadRole::kWorker);
    OnFakeDeviceThread() = true;
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        item = std::move(queue_.front());
        queue_.pop_front();
      }
      for (const auto& [src, seq] : item.waits) {
        while (src->completed_.load(std::memory_order_acquire) < seq) std::this_thread::yield();
      }
      const int delay_us = std::uniform_int_distribution<int>(0, 100)(rng_);
      if (delay_us > 60) std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      item.work();
      completed_.store(item.seq, std::memory_order_release);
      context_->scheduler_notifier()->Notify();
    }
  }

  Device device_;
  vm::VmContext* context_;
  PoisoningAllocator memory_;
  PoisoningAllocator host_;  // host staging (the pinned pool of a GPU)
  std::minstd_rand rng_;     // the device thread's only
  uint64_t launched_ = 0;    // the scheduler thread's only
  std::atomic<uint64_t> completed_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false;
  std::thread thread_;
};

// Registers the fake for cuda:0, and makes every op registered so far run
// its CPU kernels there; call from a namespace-scope initialiser of the test
// file, before anything creates the VM. Test ops registered later need a
// kCUDA kernel of their own (host code: the fake's memory is host memory).
inline bool InstallFakeAccelerator() {
  vm::OverrideBackendForTesting(
      DeviceType::kCUDA, [] { return 1; },
      [](Stream s, vm::VmContext& context) -> absl::StatusOr<std::unique_ptr<vm::StreamPolicy>> {
        return std::unique_ptr<vm::StreamPolicy>(
            new FakeAccelerator(s.device(), s.index(), &context));
      });
  internal::OpRegistry::Get().UseKernelsOfForTesting(DeviceType::kCUDA, DeviceType::kCPU);
  return true;
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_FAKE_DEVICE_H_
