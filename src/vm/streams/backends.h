// BackendRegistry: how the VM finds the devices of a type and the policy of
// their streams without naming any backend. The VM layer may not include src/device/ (the build
// enforces it); the composition root (src/runtime/) fills the registry.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_STREAMS_BACKENDS_H_
#define EAGERVM_VM_STREAMS_BACKENDS_H_

#include <array>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "eagervm/device.h"
#include "eagervm/stream.h"
#include "vm/streams/stream_policy.h"

namespace eagervm::vm {

class VmContext;

// Creates the policy of stream `stream` (of the factory's device type) for
// the VM `vm`. Called with the VM's stream lock held, at most once per
// stream, on the thread that first uses the stream; must not call back into
// the VM's stream lookup. `vm` outlives the policy.
using StreamPolicyFactory =
    std::function<absl::StatusOr<std::unique_ptr<StreamPolicy>>(Stream stream, VmContext& vm)>;

// One backend per device type: how many devices of that type the process has
// and the factory of their streams. Filled once, before the VM creates its
// first stream (by InstallBackends), read-only afterwards: no lock.
class BackendRegistry {
 public:
  // Registers (or replaces) the backend of `type`. `device_count` is called
  // on every lookup of a stream of `type` and must be cheap and constant
  // (cache the driver's answer). Not thread-safe: InstallBackends only.
  void Register(DeviceType type, int (*device_count)(), StreamPolicyFactory factory) {
    Entry& e = entries_[static_cast<int>(type)];
    e.device_count = device_count;
    e.factory = std::move(factory);
  }
  // The number of devices of `type`; 0 when no backend for it is built in.
  // Thread-safe once installed.
  int DeviceCount(DeviceType type) const {
    const Entry& e = entries_[static_cast<int>(type)];
    return e.device_count != nullptr ? e.device_count() : 0;
  }
  // The stream-policy factory of `type`, or nullptr when no backend for it is
  // built in. Thread-safe once installed.
  const StreamPolicyFactory* FindFactory(DeviceType type) const {
    const Entry& e = entries_[static_cast<int>(type)];
    return e.factory ? &e.factory : nullptr;
  }

 private:
  struct Entry {
    int (*device_count)() = nullptr;
    StreamPolicyFactory factory;
  };
  std::array<Entry, kNumDeviceTypes> entries_;
};

// THE SEAM between the VM and the backends. Declared here, defined by the
// composition root (src/runtime/backends.cc), which registers the CPU and
// (when built) CUDA backends. Each VmImpl calls it once, from
// its constructor, on its own registry. It is an ordinary function that
// VmImpl references, so a static link always pulls it in (no static
// initialiser that a linker could drop) and users call no init function.
void InstallBackends(BackendRegistry& registry);

// Tests only: a backend that every VM created afterwards installs for `type`
// over the built-in one (a fake accelerator whose memory is host memory, so
// the device-generic paths run without a GPU: tests/fake_device_test.cc).
// Call before the process VM exists (a gtest Environment's SetUp, before any
// other eagervm call); not thread-safe.
void OverrideBackendForTesting(DeviceType type, int (*device_count)(), StreamPolicyFactory factory);

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_STREAMS_BACKENDS_H_
