#include "distributed/process_group.h"

#include <cstdlib>

#include "base/str_cat.h"
#include "distributed/transports.h"

namespace eagervm::dist {

ProcessGroup& ProcessGroup::Get() {
  static ProcessGroup* group = new ProcessGroup();
  return *group;
}

absl::Status ProcessGroup::Init() {
  base::MutexLock lock(&mu_);
  switch (state_.load(std::memory_order_acquire)) {
    case State::kActive:
      return absl::OkStatus();
    case State::kFinalized:
      return absl::FailedPreconditionError(
          "InitDistributed: MPI was finalised already (it can be initialised once per process)");
    case State::kNone:
      break;
  }
  absl::StatusOr<std::unique_ptr<Communicator>> host = MakeHostCommunicator();
  if (!host.ok()) return host.status();
  host_ = std::move(host).value();
  // NCCL for this rank's GPU, when the build and the machine have them.
  int device = -1;
  absl::StatusOr<std::unique_ptr<Communicator>> cuda = MakeCudaCommunicator(*host_, &device);
  if (cuda.ok()) {
    cuda_ = std::move(cuda).value();
    cuda_device_ = device;
  } else if (!absl::IsUnimplemented(cuda.status())) {
    (void)host_->Finalize();
    state_.store(State::kFinalized, std::memory_order_release);
    return cuda.status();
  }
  state_.store(State::kActive, std::memory_order_release);
  // Finalise after the VM has drained: if the VM's own exit handler runs
  // first, Sync() just returns FailedPrecondition.
  std::atexit([] { (void)ProcessGroup::Get().Finalize(); });
  return absl::OkStatus();
}

absl::Status ProcessGroup::Finalize() {
  if (!active()) return absl::OkStatus();
  absl::Status drained = Sync();
  if (absl::IsFailedPrecondition(drained)) drained = absl::OkStatus();  // VM shut down: drained
  base::MutexLock lock(&mu_);
  if (!active()) return drained;
  state_.store(State::kFinalized, std::memory_order_release);
  absl::Status s = host_->Finalize();
  return drained.ok() ? s : drained;
}

absl::StatusOr<Communicator*> ProcessGroup::CommunicatorFor(Device d, const char* op) const {
  const State state = state_.load(std::memory_order_acquire);
  if (state != State::kActive) {
    return absl::FailedPreconditionError(
        base::Cat(op, ": distributed is not initialised",
                  state == State::kFinalized ? " (FinalizeDistributed ran)"
                                             : " (call InitDistributed under mpirun first)"));
  }
  if (d.is_cpu()) return host_.get();
  if (cuda_ == nullptr || d.index() != cuda_device_) {
    return absl::FailedPreconditionError(
        base::Cat(op, ": no NCCL communicator for ", d.ToString(),
                  cuda_ == nullptr ? " (built without NCCL, or no GPU at InitDistributed)"
                                   : base::Cat(" (this rank's GPU is cuda:", cuda_device_, ")")));
  }
  return cuda_.get();
}

absl::StatusOr<const Tensor*> ProcessGroup::Token(Device d) {
  const int slot = d.is_cpu() ? 0 : 1 + d.index();
  if (slot < 0 || slot > kMaxCudaDevices) {
    return absl::InvalidArgumentError(base::Cat("no communication stream on ", d.ToString()));
  }
  if (const Tensor* t = made_tokens_[slot].load(std::memory_order_acquire); t != nullptr) {
    return t;
  }
  base::MutexLock lock(&mu_);
  Tensor& t = tokens_[slot];
  if (!t.defined()) {
    Tensor made = Zeros({1}, DType::kInt32, d);
    if (!made.ok()) return made.status();
    t = std::move(made);
    made_tokens_[slot].store(&t, std::memory_order_release);
  }
  return &t;
}

}  // namespace eagervm::dist
