// ProcessGroup: this process's place in the job (rank, world size) and its
// communicators, set once by InitDistributed; and the ordering token of each
// device's communication stream.
#ifndef EAGERVM_DISTRIBUTED_PROCESS_GROUP_H_
#define EAGERVM_DISTRIBUTED_PROCESS_GROUP_H_

#include <array>
#include <atomic>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "distributed/communicator.h"
#include "eagervm/device.h"
#include "eagervm/tensor.h"

namespace eagervm::dist {

class ProcessGroup {
 public:
  static constexpr int kMaxCudaDevices = 16;
  // Any thread. Never destroyed (kernels may run during static destruction).
  static ProcessGroup& Get();

  // User threads; block (see InitDistributed / FinalizeDistributed).
  absl::Status Init();
  absl::Status Finalize();

  // Any thread, lock-free: true between a successful Init and Finalize.
  bool active() const { return state_.load(std::memory_order_acquire) == State::kActive; }
  int rank() const { return active() ? host_->rank() : 0; }
  int size() const { return active() ? host_->size() : 1; }

  // Any thread: the communicator serving tensors on `d`, or a
  // FailedPrecondition naming `op` (not initialised, finalised, no NCCL
  // communicator for that device). The pointer lives for the process.
  absl::StatusOr<Communicator*> CommunicatorFor(Device d, const char* op) const;
  // Any thread, lock-free: CommunicatorFor's communicator, or null where it
  // would fail (the kernels' path: their op was checked when queued).
  Communicator* ActiveCommunicator(Device d) const {
    if (state_.load(std::memory_order_acquire) != State::kActive) return nullptr;
    if (d.is_cpu()) return host_.get();
    return cuda_ != nullptr && d.index() == cuda_device_ ? cuda_.get() : nullptr;
  }

  // User threads: the token every collective on `d` writes (a hidden
  // operand): the WAW edges between collectives keep them in submission
  // order on the comm stream even when a later one's inputs are ready first.
  // Created on first use (takes a lock), lock-free afterwards; the pointer
  // lives for the process (Finalize keeps the tokens: a collective racing
  // with it then fails on CommunicatorFor, not on a dropped token).
  absl::StatusOr<const Tensor*> Token(Device d);

 private:
  enum class State { kNone, kActive, kFinalized };
  ProcessGroup() = default;

  std::atomic<State> state_{State::kNone};
  // Written by Init before state_ becomes kActive, never replaced afterwards.
  std::unique_ptr<Communicator> host_;
  std::unique_ptr<Communicator> cuda_;
  int cuda_device_ = -1;

  base::Mutex mu_;                                                       // Init, Finalize, tokens
  std::array<Tensor, kMaxCudaDevices + 1> tokens_ ABSL_GUARDED_BY(mu_);  // [0]: cpu
  // &tokens_[i] once made (never changed after): Token's lock-free path.
  std::array<std::atomic<const Tensor*>, kMaxCudaDevices + 1> made_tokens_{};
};

}  // namespace eagervm::dist

#endif  // EAGERVM_DISTRIBUTED_PROCESS_GROUP_H_
