// Elementwise-chain fusion in graph mode (src/graph/fusion.cc): fused chains
// give eager's bits, broadcasting included; a result read outside its chain
// is still written; fused-away results are never allocated; errors reach
// what eager execution poisons, with eager's message.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "graph_test_util.h"

namespace eagervm {
namespace {

using testing::F32;
using testing::Make;
using testing::RunOk;
using testing::Values;

std::vector<float> Ramp(int64_t n, float scale, float shift) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 37) % 101) + shift;
  return v;
}

// Bitwise, so -0 and +0 (Neg, Relu) and the last ulp count.
void ExpectSameBits(const Tensor& got, const Tensor& want) {
  const std::vector<float> g = Values<float>(got), w = Values<float>(want);
  ASSERT_EQ(g.size(), w.size());
  EXPECT_EQ(std::memcmp(g.data(), w.data(), g.size() * sizeof(float)), 0);
}

std::string ErrorOf(const Tensor& t) {
  absl::Status s = t.Wait();
  return s.ok() ? "ok" : std::string(s.message());
}

// 40 x 33: the tiles (512 elements) end inside rows, so a row operand is
// read piece by piece.
TEST(GraphFusion, AChainWithBroadcastsEqualsEagerBitwise) {
  auto fn = [](const std::vector<Tensor>& in) {
    const Tensor &x = in[0], &row = in[1], &s = in[2];
    Tensor t = ops::Add(x, row);                                       // a row broadcast (bias)
    t = ops::Mul(t, s);                                                // a one-element tensor
    t = ops::SubScalar(t, 0.3);                                        // a scalar op
    t = ops::Div(t, row);                                              // the row again
    t = ops::Maximum(t, x);                                            // an operand already read
    t = ops::Relu(ops::SubScalar(t, 20));                              // -> 0
    return std::vector<Tensor>{ops::MulScalar(ops::Neg(t), 1.0 / 3)};  // -0
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({40, 33}), F32({1, 33}), F32({1})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().captured_nodes, 9);
  EXPECT_EQ(g->GetStats().fused_nodes, 1);  // 8 links at most: the ninth op runs alone
  EXPECT_EQ(g->GetStats().fused_ops, 8);
  EXPECT_EQ(g->GetStats().nodes, 2);
  Tensor x = Make<float>(Ramp(40 * 33, 0.37f, -18.f), {40, 33});
  Tensor row = Make<float>(Ramp(33, -0.11f, 0.9f), {1, 33});
  Tensor s = Make<float>({1.7f}, {1});
  for (int r = 0; r < 2; ++r) ExpectSameBits(RunOk(*g, {x, row, s})[0], fn({x, row, s})[0]);
  ASSERT_TRUE(Sync().ok());
}

// h is read by Sum after the chain and is an output: written out by the
// fused node; a is read only inside the chain: fused away.
TEST(GraphFusion, AnEscapingIntermediateIsWrittenOut) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor h = ops::Add(in[0], in[1]);
    Tensor a = ops::Relu(h);
    Tensor y = ops::MulScalar(a, 2.0);
    return std::vector<Tensor>{y, ops::Sum(h), h};
  };
  auto fn_read_later = [](const std::vector<Tensor>& in) {
    Tensor h = ops::Add(in[0], in[1]);
    Tensor y = ops::MulScalar(ops::Relu(h), 2.0);
    return std::vector<Tensor>{y, ops::Sum(h, 1)};
  };
  Tensor x = Make<float>(Ramp(64 * 16, 0.5f, -20.f), {64, 16});
  Tensor b = Make<float>(Ramp(16, 0.25f, -1.f), {1, 16});
  for (auto f : {+fn, +fn_read_later}) {
    absl::StatusOr<Graph> g = Graph::Capture({F32({64, 16}), F32({1, 16})}, f);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->GetStats().fused_nodes, 1);
    EXPECT_EQ(g->GetStats().fused_ops, 3);
    std::vector<Tensor> got = RunOk(*g, {x, b}), want = f({x, b});
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ExpectSameBits(got[i], want[i]);
  }
  ASSERT_TRUE(Sync().ok());
}

TEST(GraphFusion, FusedAwayResultsAreNotAllocated) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor t = ops::AddScalar(in[0], 1);
    t = ops::Mul(t, in[0]);
    t = ops::Relu(t);
    return std::vector<Tensor>{ops::SubScalar(t, 2)};
  };
  GraphOptions off;
  off.fuse = false;
  absl::StatusOr<Graph> fused = Graph::Capture({F32({1024})}, fn);
  absl::StatusOr<Graph> unfused = Graph::Capture({F32({1024})}, fn, off);
  ASSERT_TRUE(fused.ok() && unfused.ok());
  EXPECT_EQ(unfused->GetStats().fused_nodes, 0);
  EXPECT_EQ(unfused->GetStats().nodes, 4);
  EXPECT_GE(unfused->GetStats().lower_bound_bytes, 4096);
  EXPECT_EQ(fused->GetStats().nodes, 1);
  EXPECT_EQ(fused->GetStats().lower_bound_bytes, 0);  // no intermediate left
  Tensor x = Make<float>(Ramp(1024, 0.1f, -5.f), {1024});
  ExpectSameBits(RunOk(*fused, {x})[0], RunOk(*unfused, {x})[0]);
  ASSERT_TRUE(Sync().ok());
}

// A link that refuses its operand (bytes nothing wrote): the error names
// that op and its input, as eagerly.
TEST(GraphFusion, ARefusedOperandFailsWithEagersMessage) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor never = Empty({1, 8}, DType::kFloat32);
    Tensor t = ops::Relu(ops::Add(in[0], never));
    return std::vector<Tensor>{ops::MulScalar(t, 3.0)};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({4, 8})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().fused_ops, 3);
  Tensor x = Make<float>(Ramp(32, 1.f, 0.f), {4, 8});
  const std::string got = ErrorOf(RunOk(*g, {x})[0]), want = ErrorOf(fn({x})[0]);
  EXPECT_NE(want.find("Add: input 1 [1,8] was never written"), std::string::npos) << want;
  EXPECT_EQ(got, want);
  (void)Sync();
}

// An operand read after a link whose result escapes ends the chain: its
// error must not reach the escaped result, as eagerly.
TEST(GraphFusion, AnOperandAfterAnEscapingResultEndsTheChain) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor never = Empty({4, 8}, DType::kFloat32);
    Tensor h = ops::AddScalar(in[0], 1);
    Tensor z = ops::Mul(ops::Relu(h), never);  // h escapes (Sum), never is new
    return std::vector<Tensor>{z, ops::Sum(h)};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({4, 8})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().fused_ops, 2);  // AddScalar, Relu; Mul alone
  Tensor x = Make<float>(Ramp(32, 1.f, 0.f), {4, 8});
  std::vector<Tensor> got = RunOk(*g, {x}), want = fn({x});
  EXPECT_EQ(ErrorOf(got[0]), ErrorOf(want[0]));
  EXPECT_NE(ErrorOf(got[0]).find("never written"), std::string::npos);
  ExpectSameBits(got[1], want[1]);
  (void)Sync();
}

// Each link forwards the first error among its own operands, in its op's
// order, as the unfused ops do: here the second Add's first operand (never
// written) is refused before its second (the first Add's forwarded error),
// so the two results carry different errors. The graph fuzzer found it.
TEST(GraphFusion, EachLinkForwardsTheFirstErrorOfItsOwnOperands) {
  auto fn = [](const std::vector<Tensor>& in) {
    Tensor never = Empty({4, 8}, DType::kFloat32);
    Tensor t = ops::Add(in[0], never);  // in[0]'s error
    return std::vector<Tensor>{ops::Add(never, t), ops::Add(ops::AddScalar(in[0], 1), never)};
  };
  absl::StatusOr<Graph> g = Graph::Capture({F32({4, 8})}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->GetStats().fused_ops, 4);
  // An input that carries an error: a copy from bytes no write covered.
  Tensor part = Empty({4, 8}, DType::kFloat32);
  ASSERT_TRUE(ops::FillInplace(part.Slice(0, 0, 1), 1.0f).ok());
  Tensor bad = Make<float>(Ramp(32, 1.f, 0.f), {4, 8});
  (void)ops::CopyInto(bad, part);
  std::vector<Tensor> got = RunOk(*g, {bad}), want = fn({bad});
  EXPECT_NE(ErrorOf(want[0]).find("Add: input 0 [4,8] was never written"), std::string::npos)
      << ErrorOf(want[0]);
  EXPECT_NE(ErrorOf(want[1]).find("CopyInto"), std::string::npos) << ErrorOf(want[1]);
  EXPECT_EQ(ErrorOf(got[0]), ErrorOf(want[0]));
  EXPECT_EQ(ErrorOf(got[1]), ErrorOf(want[1]));
  (void)Sync();
}

}  // namespace
}  // namespace eagervm
