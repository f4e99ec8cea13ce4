// A refusal of an autograd or optimizer call made inside Graph::Capture
// fails the capture as well, as an op's refusal does: a caller that drops
// the returned Status must not get a graph that silently skips the
// backward pass or the update (docs/graph.md, "the first error is kept").
#ifndef EAGERVM_AUTOGRAD_CAPTURE_REFUSAL_H_
#define EAGERVM_AUTOGRAD_CAPTURE_REFUSAL_H_

#include "absl/status/status.h"
#include "vm/intake.h"

namespace eagervm::internal {

// Any thread. Returns `s`; when it is an error and this thread is
// capturing, the capture keeps it too.
inline absl::Status NotedInCapture(absl::Status s) {
  if (!s.ok()) {
    if (vm::Builder* r = vm::CurrentRecorder(); r != nullptr) r->NoteRejection(s);
  }
  return s;
}

}  // namespace eagervm::internal

#endif  // EAGERVM_AUTOGRAD_CAPTURE_REFUSAL_H_
