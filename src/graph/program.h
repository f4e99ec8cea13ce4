// Program: what Graph::Capture recorded, before any pass. Storages are
// buffers (a view shares its base's buffer, an in-place op writes the buffer
// it reads), so the dependences between nodes are the VM's own rules on
// buffers, and a buffer's lifetime covers all its values.
#ifndef EAGERVM_GRAPH_PROGRAM_H_
#define EAGERVM_GRAPH_PROGRAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "eagervm/custom_op.h"
#include "eagervm/tensor.h"
#include "vm/kernel_args.h"
#include "vm/kernel_call.h"
#include "vm/policies/access_blob_policy.h"
#include "vm/tensor_impl.h"

namespace eagervm::vm {
class VmStream;
}

namespace eagervm::graph {

enum class BufferKind : uint8_t {
  kInput,         // the caller's input `slot`, bound per run
  kParameter,     // a real tensor used inside fn, captured by reference
  kIntermediate,  // made inside fn: the plan owns it (arena, constants or an output)
};

struct Buffer {
  BufferKind kind;
  int slot = -1;  // input or parameter index
  size_t nbytes = 0;
  Device device;
};

// A tensor as a node sees it: a buffer, and where in it.
struct Value {
  int buffer = -1;
  TensorMeta meta;
  int64_t offset = 0;
};

// One op of a fused node's chain (graph/fusion.h), kept so that a failing
// read is named, and forwarded, exactly as the unfused ops would: link by
// link, operand by operand in the op's own order.
struct FusedLink {
  const char* op = nullptr;  // the op's name
  // Per operand of the op: >= 0, the fused node's input; < 0, the result of
  // link -1 - operand. A Scalar op's scalar is not an operand.
  int operands[2] = {0, 0};
  int num_operands = 0;
  int output = -1;  // the fused node's output it is written to; -1: none
};

struct Node {
  vm::KernelCall call;          // kernel null for a host write (FromVector)
  vm::BlobCallback host_write;  // host writes only: fills outputs[0]
  std::vector<Value> inputs;
  std::vector<Value> outputs;
  Scalar scalars[internal::KernelArgs::kMaxScalars];
  int num_scalars = 0;
  std::shared_ptr<const Attrs> attrs;
  vm::VmStream* stream = nullptr;
  // A fused node (graph/fusion.h): its chain's ops in order. Empty otherwise.
  std::vector<FusedLink> fused_links;

  const char* name() const { return call.name; }
  bool writes_input(size_t i) const { return call.mutated_mask.has(i); }
  // Written without being read (OpOptions::overwritten_inputs): its error or
  // unwritten state is healed, not forwarded, as eagerly.
  bool overwrites_input(size_t i) const { return call.overwritten_mask.has(i); }
};

struct Program {
  std::vector<Buffer> buffers;
  std::vector<Node> nodes;
  std::vector<TensorMeta> input_metas;
  // By slot: the user's storages, kept alive (and unreleased) by the plan.
  std::vector<std::shared_ptr<internal::StorageHandle>> parameters;
  std::vector<Value> outputs;
};

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_PROGRAM_H_
