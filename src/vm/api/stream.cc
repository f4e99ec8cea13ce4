// Stream selection: the per-thread current stream of each device.
#include "eagervm/stream.h"

#include <ostream>

#include "eagervm/virtual_machine.h"
#include "vm/intake/current_stream.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm {
namespace vm::internal_stream {
constinit thread_local int t_current_cpu = 0;
}  // namespace vm::internal_stream

namespace {
constexpr int kMaxCudaDevices = vm::VmImpl::kMaxCudaDevices;
constinit thread_local int current_cuda[kMaxCudaDevices] = {};

int* CurrentSlot(Device d) {
  if (d.is_cpu()) return &vm::internal_stream::t_current_cpu;
  if (d.index() >= 0 && d.index() < kMaxCudaDevices) return &current_cuda[d.index()];
  return nullptr;
}
}  // namespace

Stream Stream::Current(Device d) {
  int* slot = CurrentSlot(d);
  return Stream(d, slot != nullptr ? *slot : 0);
}

void* Stream::native_handle() const {
  absl::StatusOr<vm::VmStream*> s = vm::ProcessVm().GetStream(*this);
  return s.ok() ? (*s)->policy()->native_handle() : nullptr;
}

std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "Stream(" << s.device() << ", " << s.index() << ")";
}

StreamScope::StreamScope(Stream s) : previous_(Stream::Current(s.device())) {
  if (int* slot = CurrentSlot(s.device())) *slot = s.index();
}

StreamScope::~StreamScope() {
  if (int* slot = CurrentSlot(previous_.device())) *slot = previous_.index();
}

}  // namespace eagervm
