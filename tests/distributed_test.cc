// The distributed API outside a job (a plain run, no mpirun): InitDistributed
// refuses clearly (not launched by an MPI launcher, or built without MPI),
// the process counts as a world of one, and every collective is rejected
// before anything is queued, naming the op. The collectives themselves run
// under mpirun in tests/mpi/collectives_test.cc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

bool Mentions(const absl::Status& s, const std::string& text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

TEST(Distributed, InitOutsideAJobFailsClearly) {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) GTEST_SKIP() << "launched by mpirun";
  absl::Status s = InitDistributed();
  if (EAGERVM_HAS_MPI) {
    EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
    EXPECT_TRUE(Mentions(s, "mpirun")) << s;
  } else {
    EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
    EXPECT_TRUE(Mentions(s, "without MPI")) << s;
  }
  EXPECT_FALSE(IsDistributed());
  EXPECT_EQ(Rank(), 0);
  EXPECT_EQ(WorldSize(), 1);
  EXPECT_TRUE(FinalizeDistributed().ok());  // nothing to finalise
}

TEST(Distributed, CollectivesWithoutInitAreRejectedBeforeQueuing) {
  Tensor x = Full({4, 2}, 1.0, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  const uint64_t received = VirtualMachine::Get().GetStats().received;
  const Tensor results[] = {ops::AllReduce(x), ops::Broadcast(x, 0), ops::AllGather(x),
                            ops::ReduceScatter(x), ops::Recv(x.meta(), 0)};
  const char* names[] = {"AllReduce", "Broadcast", "AllGather", "ReduceScatter", "Recv"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(absl::IsFailedPrecondition(results[i].status())) << results[i].status();
    EXPECT_TRUE(Mentions(results[i].status(), std::string(names[i]) + ": distributed is not "
                                                                      "initialised"))
        << results[i].status();
  }
  absl::Status in_place = ops::AllReduceInplace(x);
  EXPECT_TRUE(absl::IsFailedPrecondition(in_place)) << in_place;
  EXPECT_TRUE(Mentions(in_place, "AllReduceInplace")) << in_place;
  absl::Status send = ops::Send(x, 0);
  EXPECT_TRUE(absl::IsFailedPrecondition(send)) << send;
  EXPECT_EQ(VirtualMachine::Get().GetStats().received, received);
  EXPECT_EQ(*x.ToVector<float>(), std::vector<float>(8, 1.0f));  // untouched
}

TEST(Distributed, TheCollectiveOpsAreNotCustomOps) {
  // The collectives have no InferFn: ops::Call cannot bypass the checks.
  absl::StatusOr<std::vector<Tensor>> r = ops::Call("AllReduce", {Full({1}, 1.0, DType::kFloat32)});
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace eagervm
