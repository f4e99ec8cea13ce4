// The collectives under mpirun (-np 2 and -np 4, tests/CMakeLists.txt): each
// against a host reference computed from every rank's known input, for
// several dtypes and sizes (empty to a scaled-down large one); the ordering
// against compute on other streams; the rejections. Every rank runs every
// test in the same order, so the collectives match even when one fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

// Rank r's element i: small integers, so float sums are exact in any order.
template <typename T>
T ValueOf(int rank, int64_t i) {
  return static_cast<T>((rank * 7 + i * 3) % 23 - 11);
}

template <typename T>
std::vector<T> InputOf(int rank, int64_t n) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = ValueOf<T>(rank, i);
  return v;
}

template <typename T>
std::vector<T> Reduced(int64_t n, ReduceOp op) {
  std::vector<T> out = InputOf<T>(0, n);
  for (int r = 1; r < WorldSize(); ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const T v = ValueOf<T>(r, i);
      out[i] = op == ReduceOp::kSum   ? static_cast<T>(out[i] + v)
               : op == ReduceOp::kMax ? std::max(out[i], v)
                                      : std::min(out[i], v);
    }
  }
  return out;
}

// 0 (empty) to 256 Ki elements (1-2 MiB per rank: the 1 GiB case, scaled down
// to keep CI short; the bench moves 64 MiB).
constexpr int64_t kSizes[] = {0, 1, 7, 1000, 1 << 18};

template <typename T>
class TypedCollectives : public ::testing::Test {};
using Types = ::testing::Types<int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(TypedCollectives, Types);

TYPED_TEST(TypedCollectives, AllReduceEveryOp) {
  using T = TypeParam;
  for (int64_t n : kSizes) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
      Tensor x = FromVector<T>(InputOf<T>(Rank(), n), {n});
      Tensor y = ops::AllReduce(x, op);
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_EQ(*y.ToVector<T>(), Reduced<T>(n, op)) << "n=" << n << " op=" << int(op);
      // x itself is unchanged; the in-place form writes it.
      EXPECT_EQ(*x.ToVector<T>(), InputOf<T>(Rank(), n));
      ASSERT_TRUE(ops::AllReduceInplace(x, op).ok());
      EXPECT_EQ(*x.ToVector<T>(), Reduced<T>(n, op)) << "in place, n=" << n;
    }
  }
}

TYPED_TEST(TypedCollectives, BroadcastFromEveryRoot) {
  using T = TypeParam;
  for (int64_t n : kSizes) {
    for (int root = 0; root < WorldSize(); ++root) {
      Tensor y = ops::Broadcast(FromVector<T>(InputOf<T>(Rank(), n), {n}), root);
      EXPECT_EQ(*y.ToVector<T>(), InputOf<T>(root, n)) << "n=" << n << " root=" << root;
    }
  }
}

TYPED_TEST(TypedCollectives, AllGatherInRankOrder) {
  using T = TypeParam;
  for (int64_t rows : {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{1} << 17}) {
    Tensor y = ops::AllGather(FromVector<T>(InputOf<T>(Rank(), rows * 3), {rows, 3}));
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y.shape(), Shape({rows * WorldSize(), 3}));
    std::vector<T> expected;
    for (int r = 0; r < WorldSize(); ++r) {
      std::vector<T> part = InputOf<T>(r, rows * 3);
      expected.insert(expected.end(), part.begin(), part.end());
    }
    EXPECT_EQ(*y.ToVector<T>(), expected) << "rows=" << rows;
  }
}

TYPED_TEST(TypedCollectives, ReduceScatterSplitsDimZero) {
  using T = TypeParam;
  const int w = WorldSize();
  for (int64_t rows_per_rank : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{1} << 16}) {
    const int64_t n = rows_per_rank * w * 2;
    Tensor y = ops::ReduceScatter(FromVector<T>(InputOf<T>(Rank(), n), {rows_per_rank * w, 2}));
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y.shape(), Shape({rows_per_rank, 2}));
    const std::vector<T> all = Reduced<T>(n, ReduceOp::kSum);
    const int64_t block = rows_per_rank * 2;
    std::vector<T> expected(all.begin() + Rank() * block, all.begin() + (Rank() + 1) * block);
    EXPECT_EQ(*y.ToVector<T>(), expected) << "rows per rank=" << rows_per_rank;
  }
}

TYPED_TEST(TypedCollectives, SendRecvRing) {
  using T = TypeParam;
  const int w = WorldSize(), r = Rank();
  if (w % 2 != 0) GTEST_SKIP() << "the even/odd pairing needs an even world";
  const int next = (r + 1) % w, prev = (r + w - 1) % w;
  for (int64_t n : kSizes) {
    Tensor x = FromVector<T>(InputOf<T>(r, n), {n});
    const TensorMeta meta{{n}, DTypeOf<T>(), Device::Cpu()};
    Tensor got;
    // Even ranks send first: a large Send completes only when its Recv is posted.
    if (r % 2 == 0) {
      ASSERT_TRUE(ops::Send(x, next).ok());
      got = ops::Recv(meta, prev);
    } else {
      got = ops::Recv(meta, prev);
      ASSERT_TRUE(ops::Send(x, next).ok());
    }
    EXPECT_EQ(*got.ToVector<T>(), InputOf<T>(prev, n)) << "n=" << n;
  }
}

TEST(Collectives, BoolReducesWithLogicalOps) {
  const bool mine = Rank() == 0;
  Tensor x = FromVector<bool>(std::vector<bool>{mine, true, false}, {3});
  EXPECT_EQ(*ops::AllReduce(x, ReduceOp::kMax).ToVector<bool>(),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(*ops::AllReduce(x, ReduceOp::kMin).ToVector<bool>(),
            (std::vector<bool>{WorldSize() == 1, true, false}));
  Tensor sum = ops::AllReduce(x, ReduceOp::kSum);
  EXPECT_TRUE(absl::IsInvalidArgument(sum.status())) << sum.status();
}

// A slow kernel on compute stream 1 writes x; the collective must wait for it
// (RAW across streams), a write after the collective must wait for the
// collective's read (WAR), and a later collective whose input is ready at
// once must not overtake (the ranks would pair different collectives).
absl::Status SlowAddOne(KernelContext& ctx) {
  std::this_thread::sleep_for(std::chrono::milliseconds(Rank() == 0 ? 300 : 0));
  float* x = ctx.mutable_input<float>(0);
  for (int64_t i = 0; i < ctx.input_meta(0).shape.numel(); ++i) x[i] += 1;
  return absl::OkStatus();
}

// Registers SlowAddOne once per process (tests may run filtered).
bool RegisterSlowAddOne() {
  static const bool ok =
      RegisterOp(
          "SlowAddOne",
          [](const std::vector<TensorMeta>&, const Attrs&) {
            return absl::StatusOr<std::vector<TensorMeta>>(std::vector<TensorMeta>{});
          },
          OpOptions{{0}})
          .ok() &&
      RegisterKernel("SlowAddOne", DeviceType::kCPU, SlowAddOne).ok();
  return ok;
}

TEST(Collectives, OrderedAgainstComputeOnOtherStreams) {
  ASSERT_TRUE(RegisterSlowAddOne());
  const int64_t n = 1000;
  Tensor a = Full({n}, 1.0, DType::kFloat32);
  Tensor b = Full({2 * n}, 2.0, DType::kFloat32);  // another size: overtaking would not match
  ASSERT_TRUE(Sync().ok());
  {
    StreamScope scope(Stream(Device::Cpu(), 1));
    ASSERT_TRUE(ops::Call("SlowAddOne", {a}).ok());  // a = 2, slowly on rank 0
  }
  Tensor sum_a = ops::AllReduce(a);              // must see 2 on every rank
  Tensor sum_b = ops::AllReduce(b);              // ready at once; must still run second
  ASSERT_TRUE(ops::FillInplace(a, 100.0).ok());  // after AllReduce has read a
  const float w = static_cast<float>(WorldSize());
  EXPECT_EQ(*sum_a.ToVector<float>(), std::vector<float>(n, 2 * w));
  EXPECT_EQ(*sum_b.ToVector<float>(), std::vector<float>(2 * n, 2 * w));
  EXPECT_EQ(*a.ToVector<float>(), std::vector<float>(n, 100));
  // And the other way: compute on stream 1 reads what the collective wrote.
  Tensor c = Full({n}, 3.0, DType::kFloat32);
  ASSERT_TRUE(ops::AllReduceInplace(c).ok());
  Tensor d;
  {
    StreamScope scope(Stream(Device::Cpu(), 1));
    d = ops::MulScalar(c, 2.0);
  }
  EXPECT_EQ(*d.ToVector<float>(), std::vector<float>(n, 6 * w));
  EXPECT_TRUE(Sync().ok());
}

// With VmOptions::collectives_on_caller and nothing in flight a CPU
// collective runs on the calling thread (vm/lifecycle/donate.h): it has finished,
// and been released, when the call returns. Without that path it would still
// be queued or running. (mpi_collectives_np2_on_caller turns it on.)
TEST(Collectives, IdleVmRunsCollectiveOnCaller) {
  if (!VirtualMachine::Get().options().collectives_on_caller) {
    GTEST_SKIP() << "VmOptions::collectives_on_caller is off (EAGERVM_COLLECTIVES_ON_CALLER)";
  }
  Tensor x = Full({5}, 1.0, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  const int rounds = 10;
  for (int i = 0; i < rounds; ++i) {
    ASSERT_TRUE(ops::AllReduceInplace(x).ok());
    EXPECT_EQ(VirtualMachine::Get().GetStats().in_flight, 0) << "round " << i;
    ASSERT_TRUE(x.Wait().ok());
  }
  float expected = 1;
  for (int i = 0; i < rounds; ++i) expected *= static_cast<float>(WorldSize());
  EXPECT_EQ(*x.ToVector<float>(), std::vector<float>(5, expected));
}

// With work in flight the collective is queued as before (it returns at
// once), and still ordered after the compute it depends on.
TEST(Collectives, BusyVmQueuesCollective) {
  ASSERT_TRUE(RegisterSlowAddOne());
  Tensor y = Full({3}, 1.0, DType::kFloat32);
  Tensor x = Full({3}, 1.0, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  {
    StreamScope scope(Stream(Device::Cpu(), 1));
    ASSERT_TRUE(ops::Call("SlowAddOne", {y}).ok());  // 300 ms on rank 0
  }
  ASSERT_TRUE(ops::AllReduceInplace(x).ok());
  ASSERT_TRUE(ops::AllReduceInplace(y).ok());  // after SlowAddOne (RAW)
  if (Rank() == 0) EXPECT_GE(VirtualMachine::Get().GetStats().in_flight, 1);
  const float w = static_cast<float>(WorldSize());
  EXPECT_EQ(*x.ToVector<float>(), std::vector<float>(3, w));
  EXPECT_EQ(*y.ToVector<float>(), std::vector<float>(3, 2 * w));
}

// Another user thread keeps submitting compute while this one runs idle-VM
// collectives on itself: both results stay exact, nothing hangs.
TEST(Collectives, DonatesWhileAnotherThreadComputes) {
  Tensor x = Full({8}, 1.0, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  std::thread other([] {
    Tensor z = Zeros({16}, DType::kFloat32);
    Tensor one = Full({16}, 1.0, DType::kFloat32);
    for (int i = 0; i < 300; ++i) EXPECT_TRUE(ops::AddInplace(z, one).ok());
    EXPECT_EQ(*z.ToVector<float>(), std::vector<float>(16, 300));
  });
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(ops::AllReduceInplace(x, ReduceOp::kMax).ok());
    ASSERT_TRUE(x.Wait().ok());
  }
  other.join();
  EXPECT_EQ(*x.ToVector<float>(), std::vector<float>(8, 1));
  EXPECT_TRUE(Sync().ok());
}

TEST(Collectives, RejectsBadInputBeforeQueuing) {
  Tensor x = Zeros({3, 2}, DType::kFloat32);
  Tensor uneven = Zeros({WorldSize() + 1, 2}, DType::kFloat32);
  Tensor scalar = Zeros({}, DType::kFloat32);
  Tensor bad = Tensor::Error(absl::InvalidArgumentError("upstream failure"));
  ASSERT_TRUE(Sync().ok());
  const uint64_t received = VirtualMachine::Get().GetStats().received;
  Tensor t = ops::Broadcast(x, WorldSize());
  EXPECT_TRUE(absl::IsInvalidArgument(t.status()));
  EXPECT_NE(t.status().message().find("Broadcast: root"), std::string::npos) << t.status();
  EXPECT_TRUE(absl::IsInvalidArgument(ops::Broadcast(x, -1).status()));
  Tensor rs = ops::ReduceScatter(uneven);
  EXPECT_TRUE(absl::IsInvalidArgument(rs.status()));
  EXPECT_NE(rs.status().message().find("ReduceScatter: dim 0"), std::string::npos) << rs.status();
  EXPECT_TRUE(absl::IsInvalidArgument(ops::AllGather(scalar).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ops::Send(x, Rank())));
  EXPECT_TRUE(absl::IsInvalidArgument(ops::Send(x, WorldSize())));
  Tensor r = ops::Recv({{3}, DType::kInt32, Device::Cpu()}, -1);
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_EQ(ops::AllReduce(bad).status(), bad.status());  // an error tensor flows through
  absl::StatusOr<Graph> g = Graph::Capture({x.meta()}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{ops::AllReduce(in[0])};
  });
  EXPECT_FALSE(g.ok());
  EXPECT_EQ(VirtualMachine::Get().GetStats().received, received);  // nothing was queued
}

}  // namespace
}  // namespace eagervm

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (absl::Status s = eagervm::InitDistributed(); !s.ok()) {
    std::fprintf(stderr, "InitDistributed: %s\n", s.ToString().c_str());
    return 2;
  }
  if (eagervm::Rank() != 0) {  // one rank's report is enough; every rank's exit code counts
    ::testing::TestEventListeners& l = ::testing::UnitTest::GetInstance()->listeners();
    delete l.Release(l.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  const absl::Status fin = eagervm::FinalizeDistributed();
  if (!fin.ok()) std::fprintf(stderr, "FinalizeDistributed: %s\n", fin.ToString().c_str());
  return rc != 0 || !fin.ok() ? 1 : 0;
}
