// The streams a thread resolved last (ResolveStream's cache), for the paths
// that resolve a stream on every op: a thread's ops go to one or two streams
// nearly always, and the registry lookup costs ~40 instructions. Two slots,
// picked by the stream index's low bit, so that a thread alternating between
// compute streams 0 and 1 (independent work spread over two streams) hits
// both (one slot missed on every op there, ~60 instructions).
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_LAST_STREAM_H_
#define EAGERVM_VM_INTAKE_LAST_STREAM_H_

#include "eagervm/stream.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm::vm {

namespace internal_run {
// Keyed by the VM too: a fork() child makes a new one (the parent's is
// leaked, so its address is never reused), and its streams are new.
struct LastStream {
  const VmImpl* vm = nullptr;
  Device device;
  int index = -1;
  VmStream* stream = nullptr;
};
inline constexpr int kLastStreamSlots = 2;
extern constinit thread_local LastStream t_last_stream[kLastStreamSlots];  // process_vm.cc
// The slot that caches `s`.
inline LastStream& LastStreamSlot(Stream s) {
  return t_last_stream[static_cast<unsigned>(s.index()) & (kLastStreamSlots - 1)];
}
}  // namespace internal_run

// Any thread, never blocks. The runtime stream for `s` if this thread
// resolved it lately and the VM still accepts work; else null (then
// ResolveStream, which also names the problem).
[[gnu::always_inline]] inline VmStream* LastResolvedStream(Stream s) {
  VmImpl& vm = ProcessVm();
  const internal_run::LastStream& last = internal_run::LastStreamSlot(s);
  if (last.vm == &vm && last.index == s.index() && last.device == s.device() && !vm.shut_down())
      [[likely]] {
    return last.stream;
  }
  return nullptr;
}

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_LAST_STREAM_H_
