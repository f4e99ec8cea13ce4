#include "ops/op_registry.h"

#include <cstdio>
#include <cstdlib>

#include "base/str_cat.h"

namespace eagervm::internal {

OpRegistry& OpRegistry::Get() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();  // leaked: kernels may run during static destruction
    RegisterBuiltinOps(*r);
    InstallKernels(*r);  // src/runtime/: the CPU and CUDA kernels
    return r;
  }();
  return *registry;
}

absl::Status OpRegistry::RegisterOp(std::string name, InferFn infer, OpOptions options) {
  const bool never_blocks = options.small_runs_inline;
  return RegisterOp(std::move(name), std::move(infer), std::move(options), never_blocks);
}

absl::Status OpRegistry::RegisterOp(std::string name, InferFn infer, OpOptions options,
                                    bool never_blocks, uint64_t gathered) {
  if (name.empty()) return absl::InvalidArgumentError("RegisterOp: the op name is empty");
  auto def = std::make_unique<OpDef>();
  for (int i : options.mutated_inputs) {
    if (i < 0 || i >= 64) {
      return absl::InvalidArgumentError(
          base::Cat("RegisterOp(", name, "): mutated input index ", i, " is out of range [0, 64)"));
    }
    def->mutated_mask.set(static_cast<size_t>(i));
  }
  for (int i : options.overwritten_inputs) {
    if (i < 0 || !def->mutated_mask.has(static_cast<size_t>(i))) {
      return absl::InvalidArgumentError(base::Cat("RegisterOp(", name, "): overwritten input ", i,
                                                  " is not one of the mutated inputs"));
    }
    def->overwritten_mask.set(static_cast<size_t>(i));
  }
  def->name = name;
  def->infer = std::move(infer);
  def->options = std::move(options);
  def->never_blocks = never_blocks;
  def->gathered_mask.bits = gathered;
  base::MutexLock lock(&mu_);
  if (ops_.contains(name)) {
    return absl::AlreadyExistsError(base::Cat("RegisterOp: op '", name, "' is already registered"));
  }
  ops_.emplace(std::move(name), std::move(def));
  return absl::OkStatus();
}

absl::Status OpRegistry::RegisterKernel(std::string_view op, DeviceType device, KernelFn kernel) {
  if (!kernel)
    return absl::InvalidArgumentError(base::Cat("RegisterKernel(", op, "): empty kernel"));
  base::MutexLock lock(&mu_);
  auto it = ops_.find(absl::string_view(op.data(), op.size()));
  if (it == ops_.end()) {
    return absl::NotFoundError(
        base::Cat("RegisterKernel: unknown op '", op, "' (RegisterOp it first)"));
  }
  // Published lock-free: op calls read the slot without mu_ (KernelSlot).
  if (!it->second->device_kernel[static_cast<int>(device)].Set(std::move(kernel))) {
    return absl::AlreadyExistsError(base::Cat("RegisterKernel: op '", op, "' already has a ",
                                              device == DeviceType::kCPU ? "cpu" : "cuda",
                                              " kernel"));
  }
  return absl::OkStatus();
}

absl::Status OpRegistry::RegisterTypedKernel(std::string_view op, DeviceType device, DType dtype,
                                             KernelFn kernel) {
  base::MutexLock lock(&mu_);
  auto it = ops_.find(absl::string_view(op.data(), op.size()));
  if (it == ops_.end()) return absl::NotFoundError(base::Cat("unknown op '", op, "'"));
  if (!it->second->typed_kernel[static_cast<int>(device)][static_cast<int>(dtype)].Set(
          std::move(kernel))) {
    return absl::AlreadyExistsError(base::Cat("op '", op, "' already has this kernel"));
  }
  return absl::OkStatus();
}

void OpRegistry::UseKernelsOfForTesting(DeviceType type, DeviceType from) {
  base::MutexLock lock(&mu_);
  const int t = static_cast<int>(type), f = static_cast<int>(from);
  for (auto& [name, def] : ops_) {
    def->device_kernel[t].ReplaceForTesting(def->device_kernel[f].Get());
    for (int d = 0; d < kNumDTypes; ++d) {
      def->typed_kernel[t][d].ReplaceForTesting(def->typed_kernel[f][d].Get());
    }
  }
}

const OpDef* OpRegistry::Find(std::string_view name) const {
  base::MutexLock lock(&mu_);
  auto it = ops_.find(absl::string_view(name.data(), name.size()));
  return it == ops_.end() ? nullptr : it->second.get();
}

void OpRegistry::SetCpuStridedInputs(std::string_view op, uint64_t mask) {
  base::MutexLock lock(&mu_);
  auto it = ops_.find(absl::string_view(op.data(), op.size()));
  if (it != ops_.end()) it->second->cpu_strided_inputs = mask;
}

const OpDef& OpRegistry::MustFind(std::string_view name) const {
  const OpDef* def = Find(name);
  if (def == nullptr) {
    std::fprintf(stderr, "eagervm internal error: built-in op '%.*s' is not registered\n",
                 static_cast<int>(name.size()), name.data());
    std::abort();
  }
  return *def;
}

}  // namespace eagervm::internal
