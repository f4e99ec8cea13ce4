#include "distributed/collective_kernels.h"

#include "distributed/process_group.h"
#include "eagervm/status_macros.h"

namespace eagervm::dist {
namespace {

ReduceOp OpArg(KernelContext& ctx) { return static_cast<ReduceOp>(ctx.scalar(0).to<int>()); }

absl::StatusOr<Communicator*> CommOf(KernelContext& ctx, const char* op) {
  const TensorMeta& meta = ctx.num_outputs() > 0 ? ctx.output_meta(0) : ctx.input_meta(0);
  const ProcessGroup& group = ProcessGroup::Get();
  if (Communicator* c = group.ActiveCommunicator(meta.device); c != nullptr) [[likely]] {
    return c;
  }
  return group.CommunicatorFor(meta.device, op);  // the reason
}

absl::Status AllReduceKernel(KernelContext& ctx) {
  EAGERVM_ASSIGN_OR_RETURN(Communicator * c, CommOf(ctx, kAllReduce));
  const TensorMeta& m = ctx.input_meta(0);
  return c->AllReduce(ctx.raw_input(0), ctx.raw_output(0), m.shape.numel(), m.dtype, OpArg(ctx),
                      ctx.cuda_stream());
}

absl::Status AllReduceInplaceKernel(KernelContext& ctx) {
  EAGERVM_ASSIGN_OR_RETURN(Communicator * c, CommOf(ctx, kAllReduceInplace));
  const TensorMeta& m = ctx.input_meta(0);
  void* x = ctx.raw_mutable_input(0);
  return c->AllReduce(x, x, m.shape.numel(), m.dtype, OpArg(ctx), ctx.cuda_stream());
}

absl::Status BroadcastKernel(KernelContext& ctx) {
  EAGERVM_ASSIGN_OR_RETURN(Communicator * c, CommOf(ctx, kBroadcast));
  const TensorMeta& m = ctx.input_meta(0);
  return c->Broadcast(ctx.raw_input(0), ctx.raw_output(0), m.shape.numel(), m.dtype,
                      ctx.scalar(0).to<int>(), ctx.cuda_stream());
}

absl::Status AllGatherKernel(KernelContext& ctx) {
  EAGERVM_ASSIGN_OR_RETURN(Communicator * c, CommOf(ctx, kAllGather));
  const TensorMeta& m = ctx.input_meta(0);
  return c->AllGather(ctx.raw_input(0), ctx.raw_output(0), m.shape.numel(), m.dtype,
                      ctx.cuda_stream());
}

absl::Status ReduceScatterKernel(KernelContext& ctx) {
  EAGERVM_ASSIGN_OR_RETURN(Communicator * c, CommOf(ctx, kReduceScatter));
  const TensorMeta& m = ctx.output_meta(0);
  return c->ReduceScatter(ctx.raw_input(0), ctx.raw_output(0), m.shape.numel(), m.dtype, OpArg(ctx),
                          ctx.cuda_stream());
}

absl::Status SendKernel(KernelContext& ctx) {
  EAGERVM_ASSIGN_OR_RETURN(Communicator * c, CommOf(ctx, kSend));
  const TensorMeta& m = ctx.input_meta(0);
  return c->Send(ctx.raw_input(0), m.shape.numel(), m.dtype, ctx.scalar(0).to<int>(),
                 ctx.cuda_stream());
}

absl::Status RecvKernel(KernelContext& ctx) {
  EAGERVM_ASSIGN_OR_RETURN(Communicator * c, CommOf(ctx, kRecv));
  const TensorMeta& m = ctx.output_meta(0);
  return c->Recv(ctx.raw_output(0), m.shape.numel(), m.dtype, ctx.scalar(0).to<int>(),
                 ctx.cuda_stream());
}

void Define(internal::OpRegistry& r, const char* name, std::vector<int> mutated, KernelFn kernel) {
  OpOptions o;
  o.mutated_inputs = std::move(mutated);
  o.small_runs_inline = false;  // blocks until every rank joins: never on the scheduler
  (void)r.RegisterOp(name, nullptr, std::move(o));
  (void)r.RegisterKernel(name, DeviceType::kCPU, kernel);
  (void)r.RegisterKernel(name, DeviceType::kCUDA, std::move(kernel));
}

}  // namespace

void RegisterCollectiveOps(internal::OpRegistry& r) {
  Define(r, kAllReduce, {1}, AllReduceKernel);
  Define(r, kAllReduceInplace, {0, 1}, AllReduceInplaceKernel);
  Define(r, kBroadcast, {1}, BroadcastKernel);
  Define(r, kAllGather, {1}, AllGatherKernel);
  Define(r, kReduceScatter, {1}, ReduceScatterKernel);
  Define(r, kSend, {1}, SendKernel);
  Define(r, kRecv, {0}, RecvKernel);
}

}  // namespace eagervm::dist
