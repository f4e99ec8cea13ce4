// InferCache: a thread's memo of custom-op inference (issue 15, item 3;
// OneFlow's "don't re-infer identical op nodes"). ops::Call asks it for
// (op, input metas, attrs) before running the op's InferFn, so a repeated
// call costs a hash and a compare instead of the user's function, two
// std::vectors and, with attrs, a copy of them.
//
// Per thread, so lookups take no lock and need no atomics; each thread fills
// its own (an InferFn runs once per thread per distinct call, which is why
// RegisterOp asks for a pure one). Direct-mapped, kSlots entries: a program
// that cycles through more distinct calls than that just re-infers some of
// them, which is what every call cost before.
#ifndef EAGERVM_OPS_INFER_CACHE_H_
#define EAGERVM_OPS_INFER_CACHE_H_

#include <array>
#include <cstdint>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "eagervm/custom_op.h"
#include "eagervm/tensor.h"

namespace eagervm::internal {

struct OpDef;

// One remembered inference. Only whole, valid results are stored: an
// InferFn that failed, threw, or returned an output ops::Call rejects is
// asked again next time (and fails again, with its own message).
struct InferEntry {
  const OpDef* def = nullptr;  // null: an empty slot
  uint64_t hash = 0;           // InferCache::Hash of the key below
  absl::InlinedVector<TensorMeta, 2> inputs;
  // The call's attrs, shared with the instructions that use them (the VM
  // keeps a reference while one runs); null for no attrs.
  std::shared_ptr<const Attrs> attrs;
  absl::InlinedVector<TensorMeta, 2> outputs;
};

class InferCache {
 public:
  static constexpr int kSlots = 16;

  // The calling thread's cache, or null once the thread's cache was
  // destroyed (an op called from a later thread_local destructor: it then
  // infers as if nothing were cached).
  static InferCache* ForThisThread();

  // The key's hash: the op, every input's meta and the attrs.
  static uint64_t Hash(const OpDef& def, absl::Span<const Tensor* const> inputs,
                       const Attrs& attrs);

  // The remembered inference of this call, or null. The pointer is valid
  // until the next Insert on this thread.
  const InferEntry* Find(const OpDef& def, uint64_t hash, absl::Span<const Tensor* const> inputs,
                         const Attrs& attrs) const;
  // Remembers an inference (replacing whatever shared its slot) and returns
  // it; valid until the next Insert on this thread.
  const InferEntry* Insert(InferEntry entry);

 private:
  std::array<InferEntry, kSlots> slots_;
};

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_INFER_CACHE_H_
