// The kernel-time loop: the MLP step's kernels (eagervm's registered CPU
// kernels, the ones eager mode runs) called directly, in order, on buffers
// allocated once: the physical limit of a step, with no runtime in between.
#include <cstdlib>
#include <deque>
#include <string_view>

#include "eagervm/eagervm.h"
#include "models/mlp.h"
#include "ops/op_registry.h"
#include "vm/kernel_args.h"

namespace eagervm::models {
namespace {

// A host buffer with the meta a kernel sees.
struct Buf {
  TensorMeta meta;
  void* data;
};

// One kernel call, set up once: `op`'s CPU kernel for `dtype` with these
// operands and scalars, as an OpCall instruction passes them.
class DirectOp {
 public:
  DirectOp(std::string_view op, DType dtype, std::vector<const Buf*> in,
           std::vector<const Buf*> out, std::vector<Scalar> scalars, internal::TempRegion* temps) {
    const internal::OpDef& def = internal::OpRegistry::Get().MustFind(op);
    kernel_ = def.FindKernel(DeviceType::kCPU, dtype);
    if (kernel_ == nullptr || scalars.size() > internal::KernelArgs::kMaxScalars) std::abort();
    for (const Buf* b : in)
      args_.inputs.push_back(internal::Operand{nullptr, &b->meta, 0, b->data});
    for (const Buf* b : out)
      args_.outputs.push_back(internal::Operand{nullptr, &b->meta, 0, b->data});
    for (size_t i = 0; i < scalars.size(); ++i) args_.scalars[i] = scalars[i];
    args_.mutated_mask = def.mutated_mask;
    args_.temp_region = temps;
  }
  absl::Status Call() {
    args_.temp_region->used = 0;  // as a graph plan does before each kernel
    args_.temp_region->requested = 0;
    KernelContext ctx = internal::KernelContextAccess::Make(&args_);
    absl::Status s = (*kernel_)(ctx);
    // A kernel that asked for more than the block would have taken memory
    // from the stream's allocator, which this loop has none of.
    if (s.ok() && args_.temp_region->requested > args_.temp_region->size)
      return absl::InternalError("kernel temporaries exceed the block");
    return s;
  }

 private:
  const KernelFn* kernel_;
  internal::KernelArgs args_;
};

class KernelTrainer final : public MlpTrainer {
 public:
  KernelTrainer(const MlpConfig& c, const Digits& d) {
    // Kernel temporaries (Sum's partial rows) from one reserved block, as a
    // graph plan's arena provides them: no allocator on the timed path.
    temp_storage_.resize(kTempBytes / sizeof(float));
    temps_.base = reinterpret_cast<char*>(temp_storage_.data());
    temps_.size = kTempBytes;
    const MlpParams init = InitialParams(c);
    const int64_t B = c.batch, H = c.hidden, I = Digits::kPixels, O = Digits::kClasses;
    const DType f = DType::kFloat32;
    w1_ = init.w1, b1_ = init.b1, w2_ = init.w2, b2_ = init.b2;
    Buf* w1 = Host({I, H}, f, w1_.data());
    Buf* b1 = Host({1, H}, f, b1_.data());
    Buf* w2 = Host({H, O}, f, w2_.data());
    Buf* b2 = Host({1, O}, f, b2_.data());
    Buf* zero = New({1, 1}, f);
    Buf *h1 = New({B, H}, f), *h = New({B, H}, f), *a = New({B, H}, f);
    Buf *l1 = New({B, O}, f), *logits = New({B, O}, f), *p = New({B, O}, f);
    Buf *oh = New({B, O}, f), *d0 = New({B, O}, f), *dl = New({B, O}, f);
    loss_ = New({}, f);
    Buf *dw2 = New({H, O}, f), *db2 = New({1, O}, f), *da = New({B, H}, f);
    Buf *mask = New({B, H}, DType::kBool), *dh = New({B, H}, f);
    Buf *dw1 = New({I, H}, f), *db1 = New({1, H}, f);
    const Scalar inv_batch(1.0f / static_cast<float>(B)), minus_lr(-c.lr);
    const Scalar t(true), n(false), axis0(int64_t{0}), axis1(int64_t{1});
    batches_ = d.size() / B;
    ops_.resize(static_cast<size_t>(batches_));
    for (int64_t b = 0; b < batches_; ++b) {
      // The batch's operands point at its rows (no copy).
      const Buf* x = Host({B, I}, f, const_cast<float*>(d.images.data() + b * B * I));
      const Buf* y = Host({B}, DType::kInt64, const_cast<int64_t*>(d.labels.data() + b * B));
      std::deque<DirectOp>& list = ops_[static_cast<size_t>(b)];
      auto op = [&](std::string_view name, DType dt, std::vector<const Buf*> in,
                    std::vector<const Buf*> out, std::vector<Scalar> s = {}) {
        list.emplace_back(name, dt, std::move(in), std::move(out), std::move(s), &temps_);
      };
      // The same ops, in the same order, as TrainStep in mlp_eagervm.cc.
      op("MatMul", f, {x, w1}, {h1});
      op("Add", f, {h1, b1}, {h});
      op("Relu", f, {h}, {a});
      op("MatMul", f, {a, w2}, {l1});
      op("Add", f, {l1, b2}, {logits});
      op("CrossEntropy", f, {logits, y}, {loss_});
      op("Softmax", f, {logits}, {p}, {axis1});
      op("OneHot", f, {y}, {oh});
      op("Sub", f, {p, oh}, {d0});
      op("MulScalar", f, {d0}, {dl}, {inv_batch});
      op("MatMulTransposed", f, {a, dl}, {dw2}, {t, n});
      op("Sum", f, {dl}, {db2}, {axis0});
      op("MatMulTransposed", f, {dl, w2}, {da}, {n, t});
      op("Gt", f, {h, zero}, {mask});
      op("Where", f, {mask, da, zero}, {dh});
      op("MatMulTransposed", f, {x, dh}, {dw1}, {t, n});
      op("Sum", f, {dh}, {db1}, {axis0});
      op("Axpy", f, {w1, dw1}, {}, {minus_lr});
      op("Axpy", f, {b1, db1}, {}, {minus_lr});
      op("Axpy", f, {w2, dw2}, {}, {minus_lr});
      op("Axpy", f, {b2, db2}, {}, {minus_lr});
    }
  }

  absl::Status Steps(int n, std::vector<float>* losses) override {
    for (int i = 0; i < n; ++i, ++step_) {
      for (DirectOp& o : ops_[static_cast<size_t>(step_ % batches_)]) {
        if (absl::Status s = o.Call(); !s.ok()) return s;
      }
      if (losses != nullptr) losses->push_back(*static_cast<float*>(loss_->data));
    }
    return absl::OkStatus();
  }

  absl::Status Evaluate(float*, float*) override {
    return absl::UnimplementedError("the kernel-time loop does not evaluate");
  }

 private:
  Buf* Host(Shape s, DType t, void* data) {
    bufs_.push_back(Buf{TensorMeta{std::move(s), t, Device::Cpu()}, data});
    return &bufs_.back();
  }
  Buf* New(Shape s, DType t) {
    Buf* b = Host(std::move(s), t, nullptr);
    storage_.emplace_back(
        static_cast<size_t>(b->meta.shape.numel() * SizeOf(t)) / sizeof(float) + 16, 0.0f);
    b->data = storage_.back().data();
    return b;
  }

  std::vector<float> w1_, b1_, w2_, b2_;
  std::deque<Buf> bufs_;  // stable addresses: the ops point at them
  std::deque<std::vector<float>> storage_;
  static constexpr size_t kTempBytes = 4 << 20;
  std::vector<float> temp_storage_;
  internal::TempRegion temps_;
  std::vector<std::deque<DirectOp>> ops_;  // per batch
  Buf* loss_;
  int64_t batches_ = 0, step_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MlpTrainer>> MakeKernelTrainer(const MlpConfig& c, const Digits& d) {
  if (!c.device.is_cpu()) {
    return absl::UnimplementedError(
        "the kernel-time loop calls the registered CPU kernels on host buffers: CPU only");
  }
  return std::unique_ptr<MlpTrainer>(std::make_unique<KernelTrainer>(c, d));
}

}  // namespace eagervm::models
