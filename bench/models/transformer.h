// A small character-level transformer language model, the same program in
// every mode the models suite times (transformer_bench.cc): eagervm eager
// and graph (autograd and Adam from eagervm/autograd.h, optim.h) and
// libtorch's C++ API with its autograd and Adam.
//
// The model: token and position embeddings, `layers` pre-LayerNorm blocks
// (causal multi-head self-attention with `heads` heads, then a GELU MLP of
// width 4 d, each added to the residual stream), a final LayerNorm and a
// linear head over the vocabulary; mean cross-entropy of the next character.
// Heads are split by Split/Concat of the projections' columns, so every
// mode computes the same operations in the same order.
//
// Data: the characters of a text file (the corpus), each distinct byte a
// token. Step k trains on batch k mod batches, `batch` windows of
// `context` + 1 characters at offsets drawn from a fixed generator.
#ifndef EAGERVM_BENCH_MODELS_TRANSFORMER_H_
#define EAGERVM_BENCH_MODELS_TRANSFORMER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eagervm/device.h"

namespace eagervm::models {

struct LmConfig {
  int64_t layers = 2;
  int64_t d = 128;
  int64_t heads = 4;
  int64_t context = 64;
  int64_t batch = 4;
  double lr = 3e-3;  // Adam
  uint64_t seed = 1;
  int64_t batches = 64;  // distinct batches, cycled
  // Where the parameters, the batches and every op live. On Device::Cuda(0)
  // a trainer whose ops lack CUDA kernels fails with their Unimplemented
  // status when made or at its first step.
  Device device = Device::Cpu();
};

// The corpus as token ids, and its vocabulary (id -> byte).
struct Corpus {
  std::string path;
  std::string vocab;
  std::vector<int64_t> ids;
};
// NotFound when `path` cannot be read (the suite then skips the model).
absl::StatusOr<Corpus> LoadCorpus(const std::string& path);

// Inputs [batch, context] and next-character targets [batch * context],
// int64, row-major.
struct LmBatch {
  std::vector<int64_t> x, y;
};
std::vector<LmBatch> MakeBatches(const LmConfig& c, const Corpus& corpus);

// The initial parameters, identical in every mode, in the order
// LmParamNames gives (row-major; a linear layer's weight is [in, out]).
struct LmParam {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};
std::vector<LmParam> InitialLmParams(const LmConfig& c, int64_t vocab);

// A lower-triangular additive mask [context, context]: 0 on and below the
// diagonal, -1e9 above.
std::vector<float> CausalMask(int64_t context);

// One mode's training and inference. Single-threaded use.
class LmTrainer {
 public:
  virtual ~LmTrainer() = default;
  // Runs `n` training steps and returns when all have finished. With
  // `losses`, appends each step's loss (read after the last step).
  virtual absl::Status Steps(int n, std::vector<float>* losses) = 0;
  // Steps run so far (graph mode runs one before capturing; its loss is
  // reported by the next Steps with `losses`, first).
  virtual int64_t steps_done() const = 0;
  // Greedy generation of `n` characters after `prompt` (context ids; each
  // new character is the argmax of the last position of a forward pass over
  // the last `context` characters). Appends the ids to `out`.
  virtual absl::Status Generate(const std::vector<int64_t>& prompt, int n,
                                std::vector<int64_t>* out) = 0;
};

// eagervm on c.device, eagerly (the VM's mode is the process's), or (`graph`) with the
// training step and the inference forward captured as Graphs: one step runs
// eagerly first (autograd's rule: every grad() must exist before capture).
absl::StatusOr<std::unique_ptr<LmTrainer>> MakeEagervmLm(const LmConfig& c, const Corpus& corpus,
                                                         bool graph);
// libtorch on one thread; Unimplemented when built without it, and on a
// device other than the CPU.
absl::StatusOr<std::unique_ptr<LmTrainer>> MakeTorchLm(const LmConfig& c, const Corpus& corpus);

}  // namespace eagervm::models

#endif  // EAGERVM_BENCH_MODELS_TRANSFORMER_H_
