// The models suite's eagervm trainers (bench/models) on the fake accelerator
// of fake_device.h standing in for cuda:0: the code paths that mlp_bench and
// transformer_bench take with --device=cuda (parameters and batches made on
// the device, losses and generated ids read back from it, graphs captured
// from device metas), without a GPU. The fake runs the CPU kernels in the
// same order, so the device must reproduce the CPU's loss curves bitwise.
// Skipped without the data (python3-sklearn's digits, base-files' GPL-3).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "eagervm/eagervm.h"
#include "fake_device.h"
#include "models/digits.h"
#include "models/mlp.h"
#include "models/transformer.h"
#include "ops/op_registry.h"  // (what fake_device.h installs: a static build's internals)

namespace eagervm::models {
namespace {

using testing::kFake;

const bool kInstalled = testing::InstallFakeAccelerator();

struct Trained {
  std::vector<float> losses;
  float loss = 0, accuracy = 0;
};

Trained TrainMlp(const MlpConfig& c, const Digits& d, bool graph) {
  Trained r;
  absl::StatusOr<std::unique_ptr<MlpTrainer>> t = MakeEagervmTrainer(c, d, graph);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return r;
  EXPECT_TRUE((*t)->Steps(12, &r.losses).ok());
  EXPECT_TRUE((*t)->Evaluate(&r.loss, &r.accuracy).ok());
  return r;
}

TEST(ModelsFakeDevice, MlpTrainsOnTheDeviceAsOnTheCpu) {
  ASSERT_TRUE(kInstalled);
  absl::StatusOr<Digits> d = LoadDigits();
  if (!d.ok()) GTEST_SKIP() << d.status();
  for (bool autograd : {false, true}) {
    SCOPED_TRACE(autograd ? "autograd" : "hand-written gradients");
    MlpConfig c;
    c.autograd = autograd;
    const Trained cpu = TrainMlp(c, *d, /*graph=*/false);
    ASSERT_EQ(cpu.losses.size(), 12u);
    c.device = kFake;
    for (bool graph : {false, true}) {
      const Trained dev = TrainMlp(c, *d, graph);
      EXPECT_EQ(dev.losses, cpu.losses) << (graph ? "graph" : "eager");
      EXPECT_EQ(dev.loss, cpu.loss);
      EXPECT_EQ(dev.accuracy, cpu.accuracy);
    }
    c.device_graphs = false;  // mlp_bench's "graph flat"
    EXPECT_EQ(TrainMlp(c, *d, /*graph=*/true).losses, cpu.losses) << "graph flat";
  }
}

TEST(ModelsFakeDevice, MlpKernelLoopIsCpuOnly) {
  Digits d;
  d.images.assign(64 * 64, 0.5f);
  d.labels.assign(64, 3);
  MlpConfig c;
  c.device = kFake;
  EXPECT_TRUE(absl::IsUnimplemented(MakeKernelTrainer(c, d).status()));
}

TEST(ModelsFakeDevice, TransformerTrainsAndGeneratesOnTheDeviceAsOnTheCpu) {
  ASSERT_TRUE(kInstalled);
  absl::StatusOr<Corpus> corpus = LoadCorpus("/usr/share/common-licenses/GPL-3");
  if (!corpus.ok()) GTEST_SKIP() << corpus.status();
  LmConfig c;
  c.layers = 1;
  c.batch = 2;
  const std::vector<int64_t> prompt(corpus->ids.begin(), corpus->ids.begin() + c.context);
  auto train = [&](const LmConfig& config, bool graph, std::vector<float>* losses,
                   std::vector<int64_t>* text) {
    absl::StatusOr<std::unique_ptr<LmTrainer>> t = MakeEagervmLm(config, *corpus, graph);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_TRUE((*t)->Steps(4 - static_cast<int>((*t)->steps_done()), losses).ok());
    ASSERT_TRUE((*t)->Generate(prompt, 3, text).ok());
  };
  std::vector<float> cpu_losses;
  std::vector<int64_t> cpu_text;
  train(c, false, &cpu_losses, &cpu_text);
  ASSERT_EQ(cpu_losses.size(), 4u);
  c.device = kFake;
  for (bool graph : {false, true}) {
    std::vector<float> losses;
    std::vector<int64_t> text;
    train(c, graph, &losses, &text);
    EXPECT_EQ(losses, cpu_losses) << (graph ? "graph" : "eager");
    EXPECT_EQ(text, cpu_text) << (graph ? "graph" : "eager");
  }
}

}  // namespace
}  // namespace eagervm::models
