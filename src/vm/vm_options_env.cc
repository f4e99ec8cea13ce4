// VmOptions::FromEnv: the defaults, overridden by EAGERVM_* variables.
// (A full registry with docs and warnings replaces this in the observability work.)
#include <cstdlib>
#include <string>

#include "base/byte_size.h"
#include "eagervm/virtual_machine.h"

namespace eagervm {
namespace {
bool ReadInt(const char* name, int64_t* out) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0') return false;
  *out = x;
  return true;
}
}  // namespace

VmOptions VmOptions::FromEnv() {
  VmOptions o;
  int64_t v;
  if (ReadInt("EAGERVM_CPU_STREAMS", &v)) o.cpu_streams = static_cast<int>(v);
  if (ReadInt("EAGERVM_COMPUTE_ON_SCHEDULER_THREAD", &v)) o.compute_on_scheduler_thread = v != 0;
  if (ReadInt("EAGERVM_SYNCHRONOUS", &v)) o.synchronous = v != 0;
  if (ReadInt("EAGERVM_MAX_IN_FLIGHT", &v)) o.max_in_flight = v;
  if (ReadInt("EAGERVM_SPIN_US", &v)) o.spin_us = v;
  if (ReadInt("EAGERVM_CUDA_MEMORY_LIMIT", &v)) o.cuda_memory_limit = v;
  if (const char* limit = std::getenv("EAGERVM_CPU_MEMORY_LIMIT"); limit != nullptr && *limit) {
    // Bytes, or with a unit: 64MiB, 1.5GiB (base::ParseByteSize). A bad value keeps the default.
    if (absl::StatusOr<int64_t> bytes = base::ParseByteSize(limit); bytes.ok()) {
      o.cpu_memory_limit = *bytes;
    }
  }
  if (ReadInt("EAGERVM_OOM_WAIT_MS", &v)) o.oom_wait_ms = v;
  return o;
}

}  // namespace eagervm
