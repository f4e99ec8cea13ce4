// Zero-copy exchange of tensors with other frameworks through DLPack 0.6
// (`DLManagedTensor`; the versioned struct of DLPack >= 1.0 is not supported).
// docs/interop.md has the ownership, thread and stream rules and the dtype table.
//
// Not included by eagervm/eagervm.h: include <eagervm/dlpack.h> explicitly.
// This header only forward-declares DLManagedTensor, so code that includes it
// compiles without the DLPack headers; code that reads the struct includes
// <dlpack/dlpack.h> itself. The functions exist only in a libeagervm built
// with the DLPack headers present (Debian: libdlpack-dev); then
// EAGERVM_HAS_DLPACK (eagervm/dlpack_config.h) is 1, else 0, and calling them is a
// link error.
#ifndef EAGERVM_DLPACK_H_
#define EAGERVM_DLPACK_H_

#include "absl/status/statusor.h"
#include "eagervm/dlpack_config.h"
#include "eagervm/export.h"
#include "eagervm/tensor.h"

struct DLManagedTensor;  // <dlpack/dlpack.h>, global namespace, C linkage

namespace eagervm {

// Exports `t` without a copy: the result points at t's storage (for a view,
// `data` points at the view's first element and `byte_offset` is 0, because
// some consumers, libtorch 1.13 among them, ignore byte_offset). `strides` is
// always set (some DLPack 0.6 consumers do not accept nullptr): the compact
// row-major strides, or a strided view's own strides (Tensor::Permute, T,
// Slice on an inner axis; 0 along an Expand's repeated dims), with no copy.
//
// BLOCKS until t is computed (like Tensor::Wait): call it from user threads
// only; on a VM thread (a kernel, a callback) it returns FailedPrecondition.
// After VirtualMachine::Shutdown() a CPU tensor computed before it can still
// be exported (its bytes are final); a device tensor cannot. Returns t's
// rejection or runtime error (it then counts as reported); an undefined
// tensor is an error as in Wait(). No stream synchronisation is needed by the
// consumer: the data is complete when this returns.
//
// The result keeps the storage alive until the consumer calls its `deleter`,
// exactly once, from any thread, also after Shutdown(); the deleter never
// blocks. The consumer may read and write the memory until then, and must
// have finished doing so on all of its streams (synchronised) when it calls
// the deleter: eagervm frees the memory in its own stream order. eagervm
// does not order its own later work against the consumer's: ops queued on t
// after the export (in-place ops) race with the consumer's accesses, so the
// caller orders them (e.g. Wait() before handing the memory over again).
[[nodiscard]] EAGERVM_EXPORT absl::StatusOr<DLManagedTensor*> ToDLPack(const Tensor& t);

// Imports `m` without a copy, taking ownership of it when accepted: the
// returned tensor reads and writes m's memory (data + byte_offset), and
// `m->deleter(m)` runs exactly once, after the last handle is dropped and
// every queued use of the storage has finished, in stream order. It runs on
// a VM thread (the worker of the stream that was current for the device when
// FromDLPack was called) or, after Shutdown(), on the thread dropping the last
// handle; a null `m->deleter` is never called. The rules for FromBlob's
// deleter apply (tensor.h): it must not block for long, call blocking eagervm
// functions or throw.
//
// Rejections are error tensors (Tensor::Error), with nothing queued, and then
// the caller keeps ownership: the deleter is NOT called (as FromBlob). Rejected:
// null `m`; a dtype with no eagervm DType (lanes != 1, or a code/bits pair
// outside the table in docs/interop.md); ndim < 0 or > Shape::kMaxDims; a
// negative dimension; a negative stride, or strides spanning more than 2^60
// elements (nullptr is compact; strides of size-1 dimensions are ignored;
// other non-compact strides import as a strided view: is_contiguous() false,
// the storage spanning its first to last element); null data with
// elements; a device other than kDLCPU or kDLCUDA, and kDLCUDA when that
// device is not available (eagervm built without CUDA, no GPU).
//
// Any thread, VM threads included; never blocks (back-pressure aside). The
// memory must hold the data when FromDLPack is called: a CUDA producer must
// have finished writing (synchronise its stream first). Ordering the
// producer's stream before eagervm's current stream is not enough: eagervm
// uses the memory on other streams too (docs/interop.md, "Streams").
EAGERVM_EXPORT Tensor FromDLPack(DLManagedTensor* m);

}  // namespace eagervm

#endif  // EAGERVM_DLPACK_H_
