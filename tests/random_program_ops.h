// The custom ops random programs call (tests/random_program.h): AddOne
// (out = x + 1) and AddOneInplace (x += 1), for float32 and int64. With a
// non-zero int64 attr "fail", the kernel fails instead with DataLoss naming
// FailureTag(fail), so a program can tell which failure a read returns.
#ifndef EAGERVM_TESTS_RANDOM_PROGRAM_OPS_H_
#define EAGERVM_TESTS_RANDOM_PROGRAM_OPS_H_

#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm::testing {

inline std::string FailureTag(int64_t id) { return "[failure " + std::to_string(id) + "]"; }

// x + 1; an integer wraps (two's complement) instead of overflowing, so any
// value a user can make (Full(INT64_MAX)) is defined. The kernel and the
// sequential reference (random_program.h) both use it.
template <typename T>
T PlusOne(T x) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) + 1u);
  } else {
    return x + 1;
  }
}

namespace detail {

template <typename T>
absl::Status AddOneKernel(KernelContext& ctx, bool inplace) {
  const int64_t n = ctx.input_meta(0).shape.numel();
  const T* in = ctx.input<T>(0);
  T* out = inplace ? ctx.mutable_input<T>(0) : ctx.output<T>(0);
  if (in == nullptr || out == nullptr) return absl::InvalidArgumentError("AddOne: bad dtype");
  for (int64_t i = 0; i < n; ++i) out[i] = PlusOne(in[i]);
  return absl::OkStatus();
}

inline KernelFn AddOne(bool inplace) {
  return [inplace](KernelContext& ctx) -> absl::Status {
    auto it = ctx.attrs().find("fail");
    if (it != ctx.attrs().end() && std::get<int64_t>(it->second) != 0) {
      return absl::DataLossError(FailureTag(std::get<int64_t>(it->second)) + " injected");
    }
    if (ctx.input_meta(0).dtype == DType::kFloat32) return AddOneKernel<float>(ctx, inplace);
    return AddOneKernel<int64_t>(ctx, inplace);
  };
}

// Registers both ops once per process (thread-safe: a function-local static).
inline void RegisterProgramOps() {
  static const bool registered = [] {
    auto same = [](const std::vector<TensorMeta>& in,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{in.at(0)};
    };
    auto none = [](const std::vector<TensorMeta>&,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{};
    };
    OpOptions small;
    small.small_runs_inline = true;
    OpOptions inplace;
    inplace.mutated_inputs = {0};
    bool ok = RegisterOp("random_program.AddOne", same, small).ok() &&
              RegisterKernel("random_program.AddOne", DeviceType::kCPU, AddOne(false)).ok() &&
              RegisterOp("random_program.AddOneInplace", none, inplace).ok() &&
              RegisterKernel("random_program.AddOneInplace", DeviceType::kCPU, AddOne(true)).ok();
    if (!ok) std::abort();  // a test setup bug, not input
    return true;
  }();
  (void)registered;
}

}  // namespace detail

// AddOne(x) (one output) or AddOneInplace(x) (none); failing with
// FailureTag(fail) when fail != 0.
inline absl::StatusOr<std::vector<Tensor>> CallAddOne(const Tensor& x, bool inplace, int64_t fail) {
  detail::RegisterProgramOps();
  Attrs attrs;
  if (fail != 0) attrs["fail"] = fail;
  return ops::Call(inplace ? "random_program.AddOneInplace" : "random_program.AddOne", {x},
                   std::move(attrs));
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_RANDOM_PROGRAM_OPS_H_
