// OpRegistry: every op, built-in and custom, by name. Built-ins are registered
// once, explicitly (no static initialisers that a static link could drop).
#ifndef EAGERVM_OPS_OP_REGISTRY_H_
#define EAGERVM_OPS_OP_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "base/mutex.h"
#include "ops/op_def.h"

namespace eagervm::internal {

class OpRegistry {
 public:
  // The registry, with the built-in ops registered. Thread-safe.
  static OpRegistry& Get();

  absl::Status RegisterOp(std::string name, InferFn infer, OpOptions options);
  // `never_blocks`: OpDef::never_blocks (the overload above: the op's
  // small_runs_inline, which promises it). Built-ins pass true.
  // `gathered`: OpDef::gathered_mask (built-ins only).
  absl::Status RegisterOp(std::string name, InferFn infer, OpOptions options, bool never_blocks,
                          uint64_t gathered = 0);
  absl::Status RegisterKernel(std::string_view op, DeviceType device, KernelFn kernel);
  // Built-ins: a kernel for one (device, dtype).
  absl::Status RegisterTypedKernel(std::string_view op, DeviceType device, DType dtype,
                                   KernelFn kernel);
  // Tests only: every op registered so far runs `from`'s kernels on devices
  // of type `type` (a fake accelerator for kCUDA whose memory is host memory
  // runs the CPU kernels: tests/fake_device.h). Ops registered later keep
  // their own kernels. Call before any op runs on `type`; not thread-safe.
  void UseKernelsOfForTesting(DeviceType type, DeviceType from);
  // Built-ins, at registration: the CPU kernel of `op` reads the inputs in
  // `mask` as strided views (OpDef::cpu_strided_inputs).
  void SetCpuStridedInputs(std::string_view op, uint64_t mask);
  // nullptr if unknown. OpDefs live forever.
  const OpDef* Find(std::string_view name) const;
  // For built-ins that must exist: aborts on a missing name (a bug in eagervm).
  const OpDef& MustFind(std::string_view name) const;

 private:
  OpRegistry() = default;
  mutable base::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<OpDef>> ops_ ABSL_GUARDED_BY(mu_);
};

// The built-in op definitions (ops/builtin_ops.cc); called once by
// OpRegistry::Get(), before InstallKernels.
void RegisterBuiltinOps(OpRegistry& registry);

// THE SEAM between the ops and the kernels. Declared here, defined by the
// composition root (src/runtime/kernels.cc), which calls the one registration
// function of each kernel folder built in (kernels/cpu/register.h and, with
// CUDA, kernels/cuda/register.h). OpRegistry::Get() calls it once, when it
// creates the registry, after RegisterBuiltinOps. It is an ordinary function
// that Get() references, so a static link always pulls it in (no static
// initialiser that a linker could drop) and users call no init function.
void InstallKernels(OpRegistry& registry);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OP_REGISTRY_H_
