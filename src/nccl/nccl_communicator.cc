#include "nccl/nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "base/str_cat.h"
#include "device/cuda/scoped_device.h"
#include "eagervm/status_macros.h"

namespace eagervm::nccl {
namespace {

absl::Status FromNccl(ncclResult_t rc, const char* call) {
  if (rc == ncclSuccess) return absl::OkStatus();
  return absl::UnavailableError(base::Cat(call, " failed: ", ncclGetErrorString(rc)));
}

ncclDataType_t TypeOf(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return ncclUint8;  // 0/1 bytes: max is or, min is and
    case DType::kInt32:
      return ncclInt32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kUInt8:
      return ncclUint8;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
  }
  return ncclUint8;
}

ncclRedOp_t OpOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kMin:
      return ncclMin;
  }
  return ncclSum;
}

cudaStream_t StreamOf(void* s) { return static_cast<cudaStream_t>(s); }

class NcclCommunicator final : public dist::Communicator {
 public:
  NcclCommunicator(ncclComm_t comm, int rank, int size) : comm_(comm), rank_(rank), size_(size) {}
  // Process exit only (the ProcessGroup is never destroyed), so no destroy
  // races a kernel; ncclCommDestroy would wait for work that may never end.
  ~NcclCommunicator() override = default;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool Reduces(DType dtype, ReduceOp op) const override {
    return dtype != DType::kBool || op != ReduceOp::kSum;
  }
  absl::Status AllReduce(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                         void* stream) override {
    return FromNccl(
        ncclAllReduce(send, recv, count, TypeOf(dtype), OpOf(op), comm_, StreamOf(stream)),
        "ncclAllReduce");
  }
  absl::Status Broadcast(const void* send, void* recv, int64_t count, DType dtype, int root,
                         void* stream) override {
    return FromNccl(ncclBroadcast(send, recv, count, TypeOf(dtype), root, comm_, StreamOf(stream)),
                    "ncclBroadcast");
  }
  absl::Status AllGather(const void* send, void* recv, int64_t count, DType dtype,
                         void* stream) override {
    return FromNccl(ncclAllGather(send, recv, count, TypeOf(dtype), comm_, StreamOf(stream)),
                    "ncclAllGather");
  }
  absl::Status ReduceScatter(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                             void* stream) override {
    return FromNccl(
        ncclReduceScatter(send, recv, count, TypeOf(dtype), OpOf(op), comm_, StreamOf(stream)),
        "ncclReduceScatter");
  }
  absl::Status Send(const void* send, int64_t count, DType dtype, int peer, void* stream) override {
    return FromNccl(ncclSend(send, count, TypeOf(dtype), peer, comm_, StreamOf(stream)),
                    "ncclSend");
  }
  absl::Status Recv(void* recv, int64_t count, DType dtype, int peer, void* stream) override {
    return FromNccl(ncclRecv(recv, count, TypeOf(dtype), peer, comm_, StreamOf(stream)),
                    "ncclRecv");
  }

 private:
  ncclComm_t comm_;
  const int rank_;
  const int size_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<dist::Communicator>> MakeNcclCommunicator(dist::Communicator& host,
                                                                         int device) {
  ncclUniqueId id;
  if (host.rank() == 0) EAGERVM_RETURN_IF_ERROR(FromNccl(ncclGetUniqueId(&id), "ncclGetUniqueId"));
  EAGERVM_RETURN_IF_ERROR(host.BroadcastBytes(&id, sizeof(id), /*root=*/0));
  // The communicator binds to the current device; the caller's is restored.
  device::cuda::ScopedDevice on_device(device);
  EAGERVM_RETURN_IF_ERROR(on_device.status());
  ncclComm_t comm = nullptr;
  EAGERVM_RETURN_IF_ERROR(
      FromNccl(ncclCommInitRank(&comm, host.size(), id, host.rank()), "ncclCommInitRank"));
  return std::make_unique<NcclCommunicator>(comm, host.rank(), host.size());
}

}  // namespace eagervm::nccl
