// The calling thread's current stream (Stream::Current), inline for the
// ops' path: every op asks, and the out-of-line call cost ~13 instructions.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_CURRENT_STREAM_H_
#define EAGERVM_VM_INTAKE_CURRENT_STREAM_H_

#include "eagervm/stream.h"

namespace eagervm::vm {

namespace internal_stream {
// The CPU slot of Stream::Current (StreamScope sets it); stream.cc.
extern constinit thread_local int t_current_cpu;
}  // namespace internal_stream

// Any thread, never blocks: Stream::Current(d).
inline Stream CurrentStream(Device d) {
  if (d.is_cpu()) [[likely]]
    return Stream(d, internal_stream::t_current_cpu);
  return Stream::Current(d);
}

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_CURRENT_STREAM_H_
