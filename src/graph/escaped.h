// Escaped symbolic tensors: storages made inside a Graph::Capture that were
// still referenced when it returned (kept in a captured variable, a global).
// They have no value; Capture fails and marks them, so that an eager op on
// one forwards an error naming graph capture, and a later Capture that uses
// one as a parameter fails at once instead of failing every Run.
#ifndef EAGERVM_GRAPH_ESCAPED_H_
#define EAGERVM_GRAPH_ESCAPED_H_

#include <memory>

#include "absl/status/status.h"
#include "vm/blob_object.h"

namespace eagervm::graph {

// Any thread; `status` is what using it reports. The blob must not be named
// by any instruction yet (it was made by the capture that calls this).
void MarkEscaped(const std::shared_ptr<vm::BlobObject>& blob, const absl::Status& status);
// Any thread: whether `blob` was marked (and is still alive).
bool IsEscaped(const vm::BlobObject* blob);

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_ESCAPED_H_
