// A 2-layer MLP (64 -> hidden -> 10, ReLU, softmax cross-entropy) trained by
// plain SGD with hand-written gradients on the digits data set, the same
// program in every mode the models suite times (mlp_bench.cc): eagervm eager,
// eagervm graph, libtorch, and the kernel-time loop (eagervm's kernels called
// directly, no runtime). Batches are the data set's rows in order, cut into
// `batch`-row pieces (the remainder dropped); step k trains on piece
// k mod pieces. bench/models/peers/mlp_torch_cuda.py is the same program in
// PyTorch from Python, for a GPU machine without libtorch's C++ API.
#ifndef EAGERVM_BENCH_MODELS_MLP_H_
#define EAGERVM_BENCH_MODELS_MLP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "eagervm/device.h"
#include "models/digits.h"

namespace eagervm::models {

struct MlpConfig {
  int64_t hidden = 128;
  int64_t batch = 64;
  float lr = 0.5f;
  uint64_t seed = 1;
  // Gradients by autograd (autograd::Backward, optim::Sgd; in libtorch its
  // autograd and torch::optim::SGD) instead of by hand. The trainer then
  // runs one step when made, so that every grad() exists before a capture:
  // its step 0 is the hand-written trainer's step 1.
  bool autograd = false;
  // Where the data, the parameters and every op live. On Device::Cuda(0)
  // a mode whose ops lack CUDA kernels fails with their Unimplemented status
  // when made (the suite prints it and goes on).
  Device device = Device::Cpu();
  // Graph modes: GraphOptions::device_graphs (false: the flat executor
  // launches each kernel, no CUDA graph; no effect on the CPU).
  bool device_graphs = true;
};

// The initial parameters, identical in every mode: w [in, out] row-major,
// b [1, out]. Uniform in +-1/sqrt(in) from a fixed generator.
struct MlpParams {
  std::vector<float> w1, b1, w2, b2;
};
MlpParams InitialParams(const MlpConfig& c);

// One mode's training loop. Single-threaded use.
class MlpTrainer {
 public:
  virtual ~MlpTrainer() = default;
  // Runs `n` training steps and returns when all have finished. With
  // `losses`, appends each step's loss (read after the last step).
  virtual absl::Status Steps(int n, std::vector<float>* losses) = 0;
  // Mean cross-entropy and accuracy of the current parameters on the whole
  // data set. Unimplemented where the mode has no evaluation (kernel time).
  virtual absl::Status Evaluate(float* loss, float* accuracy) = 0;
  // A line about how the mode ran (graph modes: the plan's statistics), or
  // empty.
  virtual std::string Notes() const { return {}; }
};

// eagervm, eagerly (`graph` false; the VM's mode is the process's, e.g.
// EAGERVM_SYNCHRONOUS=1) or with the step captured once as a Graph, on
// c.device. Unimplemented when an op of the step has no kernel there.
absl::StatusOr<std::unique_ptr<MlpTrainer>> MakeEagervmTrainer(const MlpConfig& c, const Digits& d,
                                                               bool graph);
// The same kernels as eager mode's, called directly on preallocated buffers.
// CPU only (Unimplemented for another c.device).
absl::StatusOr<std::unique_ptr<MlpTrainer>> MakeKernelTrainer(const MlpConfig& c, const Digits& d);
// libtorch's C++ API on one thread (on c.device); Unimplemented when built
// without it, or for CUDA when libtorch has no CUDA.
absl::StatusOr<std::unique_ptr<MlpTrainer>> MakeTorchTrainer(const MlpConfig& c, const Digits& d);

}  // namespace eagervm::models

#endif  // EAGERVM_BENCH_MODELS_MLP_H_
