// The model ops inside a captured Graph: a classifier step (embedding lookup,
// LayerNorm, transposed MatMul, Gelu, softmax, cross-entropy, argmax, Split,
// Concat, Where, in-place Axpy) replays equal to eager execution, and a
// label out of range in one Run poisons that Run's loss only.
#include <gtest/gtest.h>

#include "ops_test_util.h"

namespace eagervm {
namespace {

using testing::Make;
using testing::RandomData;
using testing::Rng;
using testing::Values;

TEST(GraphModelOps, ClassifierStepReplaysEqualEager) {
  Rng rng(3);
  Tensor table = Make(RandomData<float>(rng, 10 * 4), {10, 4});
  Tensor w = Make(RandomData<float>(rng, 3 * 4), {3, 4});  // [classes, features]
  Tensor gamma = Full({4}, 1.0f, DType::kFloat32), beta = Full({4}, 0.0f, DType::kFloat32);
  auto fn = [&](const std::vector<Tensor>& in) {
    Tensor h = ops::LayerNorm(ops::IndexSelect(table, 0, in[0]), gamma, beta);  // [N,4]
    std::vector<Tensor> halves = ops::Split(h, 2, 1);
    h = ops::Gelu(ops::Concat({halves[1], halves[0]}, 1));
    Tensor logits = ops::MatMul(h, w, false, true);  // [N,3]
    Tensor clipped = ops::Where(ops::Gt(logits, Full({}, 1.0f, DType::kFloat32)),
                                Full({}, 1.0f, DType::kFloat32), logits);
    return std::vector<Tensor>{ops::CrossEntropy(clipped, in[1]), ops::Argmax(logits, 1),
                               ops::Softmax(logits, -1)};
  };
  const TensorMeta ids_meta{Shape{5}, DType::kInt64, Device::Cpu()};
  absl::StatusOr<Graph> g = Graph::Capture({ids_meta, ids_meta}, fn);
  ASSERT_TRUE(g.ok()) << g.status();
  for (int r = 0; r < 4; ++r) {
    Tensor ids = Make<int64_t>({r, 9, 3, r + 1, 0}, {5});
    Tensor labels = Make<int64_t>({0, 1, 2, r % 3, 1}, {5});
    absl::StatusOr<std::vector<Tensor>> got = g->Run({ids, labels});
    ASSERT_TRUE(got.ok()) << got.status();
    const std::vector<Tensor> want = fn({ids, labels});
    EXPECT_EQ(Values<float>((*got)[0]), Values<float>(want[0])) << r;
    EXPECT_EQ(Values<int64_t>((*got)[1]), Values<int64_t>(want[1])) << r;
    EXPECT_EQ(Values<float>((*got)[2]), Values<float>(want[2])) << r;
  }
  absl::StatusOr<std::vector<Tensor>> bad =
      g->Run({Make<int64_t>({0, 1, 2, 3, 4}, {5}), Make<int64_t>({0, 1, 7, 0, 0}, {5})});
  ASSERT_TRUE(bad.ok()) << bad.status();
  const absl::Status s = (*bad)[0].Wait();
  EXPECT_NE(s.message().find("labels[2] = 7 is out of range for 3 classes"), std::string::npos)
      << s;
  (void)Sync();
  absl::StatusOr<std::vector<Tensor>> again =
      g->Run({Make<int64_t>({0, 1, 2, 3, 4}, {5}), Make<int64_t>({0, 1, 2, 0, 0}, {5})});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*again)[0].Wait().ok());
}

TEST(GraphModelOps, InPlaceAxpyAndSubInplaceOnParameters) {
  Tensor p = Make<float>({1, 2, 3}, {3});
  absl::StatusOr<Graph> g = Graph::Capture(
      {TensorMeta{Shape{3}, DType::kFloat32, Device::Cpu()}}, [&](const std::vector<Tensor>& in) {
        EXPECT_TRUE(ops::Axpy(p, -0.5, in[0]).ok());
        EXPECT_TRUE(ops::SubInplace(p, ops::Minimum(in[0], p)).ok());
        return std::vector<Tensor>{};
      });
  ASSERT_TRUE(g.ok()) << g.status();
  Tensor x = Make<float>({2, 2, 2}, {3});
  ASSERT_TRUE(g->Run({x}).ok());
  // p = p - 0.5 x = {0, 1, 2}; p -= min(x, p) = {0, 1, 2} -> {0, 0, 0}.
  EXPECT_EQ(Values<float>(p), (std::vector<float>{0, 0, 0}));
}

}  // namespace
}  // namespace eagervm
