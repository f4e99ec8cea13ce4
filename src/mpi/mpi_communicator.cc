#include "mpi/mpi_communicator.h"

#include <cstdlib>
#include <cstring>

#include "base/str_cat.h"
#include "mpi/mpi_status.h"

namespace eagervm::mpi {
namespace {

// Launchers set these: OpenMPI (OMPI_), MPICH/Hydra and Slurm (PMI_), PMIx.
bool LaunchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

int Count(int64_t n) { return static_cast<int>(n); }  // the front end checked n <= INT_MAX

class MpiCommunicator final : public dist::Communicator {
 public:
  MpiCommunicator(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool Reduces(DType dtype, ReduceOp op) const override { return OpOf(op, dtype) != MPI_OP_NULL; }

  absl::Status AllReduce(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                         void*) override {
    const void* s = send == recv ? MPI_IN_PLACE : send;
    return FromMpi(
        MPI_Allreduce(s, recv, Count(count), TypeOf(dtype), OpOf(op, dtype), MPI_COMM_WORLD),
        "MPI_Allreduce");
  }
  absl::Status Broadcast(const void* send, void* recv, int64_t count, DType dtype, int root,
                         void*) override {
    if (rank_ == root && count > 0 && send != recv) std::memcpy(recv, send, count * SizeOf(dtype));
    return FromMpi(MPI_Bcast(recv, Count(count), TypeOf(dtype), root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  absl::Status AllGather(const void* send, void* recv, int64_t count, DType dtype, void*) override {
    return FromMpi(MPI_Allgather(send, Count(count), TypeOf(dtype), recv, Count(count),
                                 TypeOf(dtype), MPI_COMM_WORLD),
                   "MPI_Allgather");
  }
  absl::Status ReduceScatter(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                             void*) override {
    return FromMpi(MPI_Reduce_scatter_block(send, recv, Count(count), TypeOf(dtype),
                                            OpOf(op, dtype), MPI_COMM_WORLD),
                   "MPI_Reduce_scatter_block");
  }
  absl::Status Send(const void* send, int64_t count, DType dtype, int peer, void*) override {
    return FromMpi(MPI_Send(send, Count(count), TypeOf(dtype), peer, kTag, MPI_COMM_WORLD),
                   "MPI_Send");
  }
  absl::Status Recv(void* recv, int64_t count, DType dtype, int peer, void*) override {
    MPI_Status status;
    EAGERVM_RETURN_IF_MPI_(
        MPI_Recv(recv, Count(count), TypeOf(dtype), peer, kTag, MPI_COMM_WORLD, &status),
        "MPI_Recv");
    int got = 0;
    MPI_Get_count(&status, TypeOf(dtype), &got);
    if (got != count) {
      return absl::InvalidArgumentError(base::Cat("Recv: expected ", count, " ", ToString(dtype),
                                                  " elements from rank ", peer, " but it sent ",
                                                  got));
    }
    return absl::OkStatus();
  }
  absl::Status BroadcastBytes(void* data, int64_t bytes, int root) override {
    return FromMpi(MPI_Bcast(data, Count(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  absl::Status Finalize() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return absl::OkStatus();
    return FromMpi(MPI_Finalize(), "MPI_Finalize");
  }

 private:
  static constexpr int kTag = 0x65766d;  // "evm": the only tag eagervm uses
  const int rank_;
  const int size_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<dist::Communicator>> MakeMpiCommunicator() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (!LaunchedByMpi()) {
      return absl::FailedPreconditionError(
          "InitDistributed: this process was not launched by an MPI launcher (run it under "
          "mpirun -np N, or srun; no OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK is set)");
    }
    int provided = MPI_THREAD_SINGLE;
    EAGERVM_RETURN_IF_MPI_(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
                           "MPI_Init_thread");
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      return absl::FailedPreconditionError(
          base::Cat("InitDistributed: MPI provides thread level ", provided,
                    " but eagervm needs MPI_THREAD_SERIALIZED (", MPI_THREAD_SERIALIZED,
                    "): the comm stream's worker, not the initialising thread, calls MPI"));
    }
  } else {
    // The application initialised MPI itself: accept it if the level suffices.
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED) {
      return absl::FailedPreconditionError(
          base::Cat("InitDistributed: MPI was initialised with thread level ", provided,
                    "; eagervm needs at least MPI_THREAD_SERIALIZED (use MPI_Init_thread)"));
    }
  }
  EAGERVM_RETURN_IF_MPI_(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
                         "MPI_Comm_set_errhandler");
  int rank = 0, size = 1;
  EAGERVM_RETURN_IF_MPI_(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  EAGERVM_RETURN_IF_MPI_(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return std::make_unique<MpiCommunicator>(rank, size);
}

}  // namespace eagervm::mpi
