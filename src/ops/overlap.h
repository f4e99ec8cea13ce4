// One rule for every device on ops that write a tensor while reading another
// (AddInplace, CopyInto): the inputs are read as they were before the op, as
// if copied first. When an input shares bytes with the written tensor other
// than element for element (same storage, offset and shape: `x += x` is
// fine), the op stages the input through a copy on the written tensor's
// device before writing. Otherwise the result would depend on the kernel's
// order: a CPU loop sees its own writes, a CUDA memcpy or grid races.
#ifndef EAGERVM_OPS_OVERLAP_H_
#define EAGERVM_OPS_OVERLAP_H_

#include "absl/status/statusor.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

// True iff `in` and `out` are usable views of one storage whose byte ranges
// overlap other than element for element, or, inside a Graph::Capture, of two
// storages one of which is a symbolic input (bound per run: it may overlap
// the other then). Any thread; a few loads.
bool OverlapsOtherThanElementwise(const Tensor& out, const Tensor& in);

// `in`, or a copy of it (queued on the calling thread, ordered after every
// earlier write of `in`) when OverlapsOtherThanElementwise(out, in). `op`
// names the caller in an error.
// The copy's own run-time errors name `op` too (a string literal: it must
// live as long as the process).
absl::StatusOr<Tensor> StagedIfOverlapping(const Tensor& out, const Tensor& in, const char* op);

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_OVERLAP_H_
