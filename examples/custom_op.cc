// How an embedding application adds its own op without touching eagervm:
// register the op (name + shape inference) and a CPU kernel, then call it with
// ops::Call and mix it freely with the built-in ops.
//
// The op: "example.Clip"(x; lo, hi) = min(max(x, lo), hi), float32 and float64.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "eagervm/eagervm.h"

namespace {

using namespace eagervm;  // NOLINT: an example

// Runs on the calling thread: validates and returns the output metas. Errors
// come back from ops::Call at once, and nothing is queued.
absl::StatusOr<std::vector<TensorMeta>> InferClip(const std::vector<TensorMeta>& in,
                                                  const Attrs& attrs) {
  if (in.size() != 1) return absl::InvalidArgumentError("takes exactly one input");
  if (in[0].dtype != DType::kFloat32 && in[0].dtype != DType::kFloat64) {
    return absl::InvalidArgumentError("needs a float32 or float64 input");
  }
  auto lo = attrs.find("lo"), hi = attrs.find("hi");
  if (lo == attrs.end() || hi == attrs.end() || !std::holds_alternative<double>(lo->second) ||
      !std::holds_alternative<double>(hi->second)) {
    return absl::InvalidArgumentError("needs double attrs 'lo' and 'hi'");
  }
  if (std::get<double>(lo->second) > std::get<double>(hi->second)) {
    return absl::InvalidArgumentError("'lo' must not exceed 'hi'");
  }
  return std::vector<TensorMeta>{in[0]};  // same shape, dtype and device
}

template <typename T>
absl::Status ClipLoop(KernelContext& ctx) {
  const T lo = static_cast<T>(std::get<double>(ctx.attrs().at("lo")));
  const T hi = static_cast<T>(std::get<double>(ctx.attrs().at("hi")));
  const T* x = ctx.input<T>(0);
  T* out = ctx.output<T>(0);  // allocated by the runtime
  const int64_t n = ctx.input_meta(0).shape.numel();
  for (int64_t i = 0; i < n; ++i) out[i] = std::min(std::max(x[i], lo), hi);
  return absl::OkStatus();
}

// Runs later, on a VM thread. An error (or an exception) fails only this op:
// its outputs carry the error to dependents and to the next Wait/Item/Sync.
absl::Status ClipKernel(KernelContext& ctx) {
  switch (ctx.input_meta(0).dtype) {
    case DType::kFloat32:
      return ClipLoop<float>(ctx);
    case DType::kFloat64:
      return ClipLoop<double>(ctx);
    default:
      return absl::InternalError("unreachable: InferClip checks the dtype");
  }
}

int Run() {
  absl::Status s = RegisterOp("example.Clip", InferClip);
  if (s.ok()) s = RegisterKernel("example.Clip", DeviceType::kCPU, ClipKernel);
  if (!s.ok()) {
    std::fprintf(stderr, "registration failed: %s\n", s.ToString().c_str());
    return 1;
  }

  Tensor x = FromVector<float>({-3, -1, 0, 0.5, 2, 7}, {2, 3});
  // A TensorList: the outputs, inline (no allocation beyond the tensors).
  absl::StatusOr<TensorList> out =
      ops::Call("example.Clip", {x * 2.0f}, {{"lo", -1.0}, {"hi", 1.0}});
  if (!out.ok()) {
    std::fprintf(stderr, "Call failed: %s\n", out.status().ToString().c_str());
    return 1;
  }
  Tensor clipped = (*out)[0];
  Tensor total = ops::Sum(clipped);  // custom op output feeds a built-in
  std::printf("clip(2x, -1, 1) = ");
  std::fflush(stdout);
  std::cout << clipped << "\n";
  absl::StatusOr<float> sum = total.Item<float>();
  if (!sum.ok() || *sum != 1.0f) {  // -1 -1 0 1 1 1
    std::fprintf(stderr, "unexpected sum\n");
    return 1;
  }
  std::printf("sum = %g\n", *sum);

  // Bad calls are rejected on this thread, naming the op.
  absl::StatusOr<TensorList> bad =
      ops::Call("example.Clip", {x}, {{"lo", 1.0}, {"hi", -1.0}});
  std::printf("bad attrs -> %s\n", bad.status().ToString().c_str());
  bad = ops::Call("example.Clip", {ops::Cast(x, DType::kInt32)}, {{"lo", 0.0}, {"hi", 1.0}});
  std::printf("int input -> %s\n", bad.status().ToString().c_str());
  s = RegisterOp("example.Clip", InferClip);
  std::printf("register again -> %s\n", s.ToString().c_str());
  return Sync().ok() ? 0 : 1;
}

}  // namespace

int main() { return Run(); }
