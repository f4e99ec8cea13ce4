// Built against an installed eagervm by tests/install_test.cmake: proves the
// package config, the exported target and the public headers work on their
// own (C++17, no source tree). Exits non-zero on a wrong result.
#include <eagervm/eagervm.h>
#include <eagervm/version.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main() {
  using eagervm::DType;
  namespace ops = eagervm::ops;

  eagervm::SetLogSink([](eagervm::LogLevel, std::string_view msg) {
    std::fprintf(stderr, "consumer log: %.*s\n", static_cast<int>(msg.size()), msg.data());
  });
  eagervm::Tensor a = eagervm::Full({4}, 1.5f, DType::kFloat32);
  eagervm::Tensor b = eagervm::Full({4}, 2.0f, DType::kFloat32);
  if (!eagervm::StartTrace().ok()) return 1;
  eagervm::Tensor c = ops::Sum(ops::Add(a, b));
  absl::StatusOr<float> v = c.Item<float>();
  if (!v.ok()) {
    std::fprintf(stderr, "consumer: %s\n", v.status().ToString().c_str());
    return 1;
  }
  const std::string trace = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                            "/eagervm_consumer_trace.json";
  if (!eagervm::StopTrace(trace).ok()) return 1;
  std::printf("eagervm %s: sum = %g\n%s\n", EAGERVM_VERSION_STRING, *v,
              eagervm::VirtualMachine::Get().GetStats().ToString().c_str());
  std::remove(trace.c_str());
  return *v == 14.0f ? 0 : 2;
}
