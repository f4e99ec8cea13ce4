// eagervm: an embeddable eager-execution runtime. The one header users include.
//
// Errors: one rule for the whole API (docs/errors.md). Errors are values:
// eagervm throws no exceptions of its own and never aborts the process.
// - A call that makes tensors returns a Tensor (ops::Add, MatMul, Full,
//   FromVector, Tensor::To/Reshape/Slice, AllReduce, Recv, FromDLPack). If the
//   call is rejected (bad shapes, dtypes, devices, a shut-down VM), nothing is
//   queued and the result is an error tensor: !t.ok(), t.status() names the
//   op and the shapes. An op given an error tensor returns that error at once,
//   so a chain of ops can be checked once, at the end. Checked(t) turns a
//   tensor into absl::StatusOr<Tensor>.
// - A call that changes existing tensors or state and returns nothing returns
//   absl::Status: in-place ops (AddInplace, MulScalarInplace, FillInplace,
//   CopyInto, AllReduceInplace), Send, Wait, Sync, CopyToHost, RegisterOp,
//   RegisterKernel, VirtualMachine::Configure/EmptyCache/Shutdown,
//   StartTrace/StopTrace, InitDistributed, vm::PhysicalRun and the
//   InstructionsBuilder's calls.
// - A call that returns a value that is not a tensor returns
//   absl::StatusOr<T>: Tensor::Item, Tensor::ToVector, ToDLPack,
//   OpHandle::Find, Graph::Capture, KernelContext::AllocateTemp.
// - A failure while the work runs (a kernel's error, out of memory) is not a
//   rejection: the call returned OK or a good tensor. The outputs carry the
//   error, the ops that depend on them forward it, and the next Wait, Item,
//   ToVector or Sync that depends on it returns it.
// Exceptions: ops::Call and Graph::Run return
// absl::StatusOr of their output tensors; `a += b` turns a rejection into an
// error tensor that replaces `a`; in a kernel, KernelContext::input/output
// return nullptr for a wrong dtype or index; Stream::native_handle returns
// nullptr when the stream cannot be created.
//
// Names: lower-case accessors read a value the handle holds (Tensor::shape,
// dim, size(i), ok; Shape::rank, numel; Device::is_cpu); CamelCase names ask
// the runtime or do work (VirtualMachine::GetStats, IsShutDown;
// Graph::GetStats; IsTracing; IsDistributed). Shape::rank() is the number of
// dimensions, Tensor::size(i) the extent of dimension i.
#ifndef EAGERVM_EAGERVM_H_
#define EAGERVM_EAGERVM_H_

#include "eagervm/autograd.h"
#include "eagervm/custom_op.h"
#include "eagervm/device.h"
#include "eagervm/distributed.h"
#include "eagervm/dtype.h"
#include "eagervm/graph.h"
#include "eagervm/instructions_builder.h"
#include "eagervm/log.h"
#include "eagervm/memory_stats.h"
#include "eagervm/ops.h"
#include "eagervm/optim.h"
#include "eagervm/scalar.h"
#include "eagervm/shape.h"
#include "eagervm/status_macros.h"
#include "eagervm/stream.h"
#include "eagervm/tensor.h"
#include "eagervm/trace.h"
#include "eagervm/version.h"
#include "eagervm/virtual_machine.h"

#endif  // EAGERVM_EAGERVM_H_
