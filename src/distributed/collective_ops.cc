// The collectives' front end: validate on the calling thread, then queue one
// OpCall on the communication stream of the tensor's device, with that
// device's ordering token as a written operand (docs/distributed.md); on an
// idle VM, with VmOptions::collectives_on_caller, a CPU collective runs on
// the calling thread instead.
#include <climits>

#include "base/str_cat.h"
#include "distributed/collective_kernels.h"
#include "distributed/process_group.h"
#include "eagervm/distributed.h"
#include "eagervm/status_macros.h"
#include "ops/submit_op.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/submit_kernel_call.h"
#include "vm/lifecycle/donate.h"
#include "vm/streams/comm_stream.h"
#include "vm/tensor_impl.h"

namespace eagervm {
namespace {

const char* Name(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "kSum";
    case ReduceOp::kMax:
      return "kMax";
    case ReduceOp::kMin:
      return "kMin";
  }
  return "?";
}

// The op `kOp` names (looked up once: the registry's lookup hashes the name).
template <const char* kOp>
const internal::OpDef& Def() {
  static const internal::OpDef& def = internal::OpRegistry::Get().MustFind(kOp);
  return def;
}

// The checks every collective shares: initialised, inside eager mode, a
// good tensor, a count the transports take (MPI counts are int; AllGather's
// output has x's count times the world size).
absl::StatusOr<dist::Communicator*> CheckCollective(const Tensor& x, const char* op,
                                                    bool gathers = false) {
  if (vm::CurrentRecorder() != nullptr) {
    return absl::FailedPreconditionError(
        base::Cat(op, ": collectives cannot be captured in a Graph (they run eagerly only)"));
  }
  EAGERVM_RETURN_IF_ERROR(internal::CheckTensor(x, op, "x"));
  EAGERVM_ASSIGN_OR_RETURN(dist::Communicator * c,
                           dist::ProcessGroup::Get().CommunicatorFor(x.device(), op));
  const int64_t total = x.numel() * (gathers ? c->size() : 1);
  if (total > INT_MAX) {
    return absl::InvalidArgumentError(base::Cat(op, ": ", x.shape().ToString(), " has ", total,
                                                " elements; at most ", INT_MAX, " per call"));
  }
  return c;
}

absl::Status CheckReduce(dist::Communicator* c, const Tensor& x, ReduceOp op, const char* name) {
  if (!c->Reduces(x.dtype(), op)) {
    return absl::InvalidArgumentError(
        base::Cat(name, ": cannot reduce ", ToString(x.dtype()), " with ", Name(op)));
  }
  return absl::OkStatus();
}

absl::Status CheckRank(dist::Communicator* c, int r, const char* what, const char* op) {
  if (r < 0 || r >= c->size()) {
    return absl::InvalidArgumentError(
        base::Cat(op, ": ", what, " ", r, " is out of range [0, ", c->size(), ")"));
  }
  return absl::OkStatus();
}

// Queues `op` on x's device's comm stream: inputs then the token, then outputs.
absl::Status Submit(const internal::OpDef& def, Device device, DType dtype, const Tensor* input,
                    const Tensor* output, Scalar arg) {
  for (const Tensor* t : {input, output}) {
    if (t != nullptr && !t->is_contiguous()) {
      return absl::InvalidArgumentError(
          base::Cat(def.name, ": the tensor ", t->shape().ToString(),
                    " is a strided view; pass its Contiguous() copy"));
    }
  }
  EAGERVM_ASSIGN_OR_RETURN(const Tensor* token, dist::ProcessGroup::Get().Token(device));
  const Tensor* inputs[2] = {input, token};
  const size_t num_inputs = input != nullptr ? 2 : 1;
  const Tensor* const* in = input != nullptr ? inputs : inputs + 1;
  const Tensor* outputs[1] = {output};
  const Scalar scalars[1] = {arg};
  const Stream comm(device, vm::kCommStreamIndex);
  EAGERVM_ASSIGN_OR_RETURN(vm::KernelCall call, internal::KernelCallFor(def, comm, dtype));
  const vm::KernelCallArgs args{absl::MakeConstSpan(in, num_inputs),
                                absl::MakeConstSpan(outputs, output != nullptr ? 1 : 0),
                                absl::MakeConstSpan(scalars), nullptr};
  // With VmOptions::collectives_on_caller and the VM idle (nothing in
  // flight, so no earlier collective either) a CPU collective runs on this
  // thread and returns when done: no hop to the scheduler and the comm
  // worker and back (docs/distributed.md).
  vm::DonateScope donate(device.is_cpu() ? vm::DonateMode::kMayBlock : vm::DonateMode::kNone);
  return vm::SubmitKernelCall(call, args, comm);
}

Tensor SubmitWithOutput(const internal::OpDef& def, const Tensor& x, Shape shape, Scalar arg) {
  Tensor out = internal::NewTensor({shape, x.dtype(), x.device()});
  absl::Status s = Submit(def, x.device(), x.dtype(), &x, &out, arg);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return out;
}

}  // namespace

namespace ops {

Tensor AllReduce(const Tensor& x, ReduceOp op) {
  absl::StatusOr<dist::Communicator*> c = CheckCollective(x, dist::kAllReduce);
  if (!c.ok()) return Tensor::Error(c.status());
  if (absl::Status s = CheckReduce(*c, x, op, dist::kAllReduce); !s.ok()) return Tensor::Error(s);
  return SubmitWithOutput(Def<dist::kAllReduce>(), x, x.shape(), static_cast<int>(op));
}

absl::Status AllReduceInplace(const Tensor& x, ReduceOp op) {
  EAGERVM_ASSIGN_OR_RETURN(dist::Communicator * c, CheckCollective(x, dist::kAllReduceInplace));
  EAGERVM_RETURN_IF_ERROR(CheckReduce(c, x, op, dist::kAllReduceInplace));
  return Submit(Def<dist::kAllReduceInplace>(), x.device(), x.dtype(), &x, nullptr,
                static_cast<int>(op));
}

Tensor Broadcast(const Tensor& x, int root) {
  absl::StatusOr<dist::Communicator*> c = CheckCollective(x, dist::kBroadcast);
  if (!c.ok()) return Tensor::Error(c.status());
  if (absl::Status s = CheckRank(*c, root, "root", dist::kBroadcast); !s.ok()) {
    return Tensor::Error(s);
  }
  return SubmitWithOutput(Def<dist::kBroadcast>(), x, x.shape(), root);
}

Tensor AllGather(const Tensor& x) {
  absl::StatusOr<dist::Communicator*> c = CheckCollective(x, dist::kAllGather, /*gathers=*/true);
  if (!c.ok()) return Tensor::Error(c.status());
  if (x.dim() == 0) {
    return Tensor::Error(absl::InvalidArgumentError(
        "AllGather: x is a scalar (shape []); it concatenates along dim 0, so give it a dim"));
  }
  Shape shape = x.shape();
  shape[0] *= (*c)->size();
  return SubmitWithOutput(Def<dist::kAllGather>(), x, shape, 0);
}

Tensor ReduceScatter(const Tensor& x, ReduceOp op) {
  absl::StatusOr<dist::Communicator*> c = CheckCollective(x, dist::kReduceScatter);
  if (!c.ok()) return Tensor::Error(c.status());
  if (absl::Status s = CheckReduce(*c, x, op, dist::kReduceScatter); !s.ok()) {
    return Tensor::Error(s);
  }
  const int n = (*c)->size();
  if (x.dim() == 0 || x.size(0) % n != 0) {
    return Tensor::Error(
        absl::InvalidArgumentError(base::Cat("ReduceScatter: dim 0 of x ", x.shape().ToString(),
                                             " must split evenly over the world size ", n)));
  }
  Shape shape = x.shape();
  shape[0] /= n;
  return SubmitWithOutput(Def<dist::kReduceScatter>(), x, shape, static_cast<int>(op));
}

absl::Status Send(const Tensor& x, int peer) {
  EAGERVM_ASSIGN_OR_RETURN(dist::Communicator * c, CheckCollective(x, dist::kSend));
  EAGERVM_RETURN_IF_ERROR(CheckRank(c, peer, "peer", dist::kSend));
  if (peer == c->rank()) {
    return absl::InvalidArgumentError(base::Cat("Send: peer ", peer, " is this rank"));
  }
  return Submit(Def<dist::kSend>(), x.device(), x.dtype(), &x, nullptr, peer);
}

Tensor Recv(const TensorMeta& meta, int peer) {
  // A stand-in tensor of `meta`, for the shared checks (nothing is queued).
  absl::StatusOr<dist::Communicator*> c =
      dist::ProcessGroup::Get().CommunicatorFor(meta.device, dist::kRecv);
  if (!c.ok()) return Tensor::Error(c.status());
  if (vm::CurrentRecorder() != nullptr) {
    return Tensor::Error(absl::FailedPreconditionError(
        "Recv: collectives cannot be captured in a Graph (they run eagerly only)"));
  }
  if (!meta.shape.IsValid() || meta.shape.numel() > INT_MAX) {
    return Tensor::Error(absl::InvalidArgumentError(
        base::Cat("Recv: bad shape ", meta.shape.ToString(), " (negative dims, or more than ",
                  INT_MAX, " elements)")));
  }
  if (absl::Status s = CheckRank(*c, peer, "peer", dist::kRecv); !s.ok()) return Tensor::Error(s);
  if (peer == (*c)->rank()) {
    return Tensor::Error(
        absl::InvalidArgumentError(base::Cat("Recv: peer ", peer, " is this rank")));
  }
  Tensor out = internal::NewTensor(meta);
  absl::Status s = Submit(Def<dist::kRecv>(), meta.device, meta.dtype, nullptr, &out, peer);
  if (!s.ok()) return Tensor::Error(std::move(s));
  return out;
}

}  // namespace ops
}  // namespace eagervm
