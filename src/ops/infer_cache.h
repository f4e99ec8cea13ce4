// InferCache: a thread's memo of custom-op inference (after
// OneFlow's "don't re-infer identical op nodes"). ops::Call asks it for
// (op, input metas, attrs) before running the op's InferFn, so a repeated
// call costs a compare instead of the user's function, two std::vectors
// and, with attrs, a copy of them.
//
// Per thread, so lookups take no lock and need no atomics; each thread fills
// its own (an InferFn runs once per thread per distinct call, which is why
// RegisterOp asks for a pure one). The call a thread made last is checked
// first, without hashing (a loop calls the same op with the same metas);
// then a direct-mapped table of kSlots entries: a program that cycles
// through more distinct calls than that just re-infers some of them, which
// is what every call cost before.
#ifndef EAGERVM_OPS_INFER_CACHE_H_
#define EAGERVM_OPS_INFER_CACHE_H_

#include <array>
#include <cstdint>
#include <memory>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "eagervm/custom_op.h"
#include "eagervm/tensor.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

struct OpDef;

// Whether two attrs are the same attributes, bit for bit: doubles compare by
// their bits, so 0.0 and -0.0 differ (a kernel computing 1/f must get its own
// call's sign) and a NaN equals the same NaN (payload included). `==` on
// Attrs would do neither.
bool SameAttrs(const Attrs& a, const Attrs& b);

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

  // Whether this entry answers `def` on `inputs` (checked: defined) with
  // `attrs`.
  bool Matches(const OpDef& d, absl::Span<const Tensor* const> in, const Attrs& a) const {
    if (def != &d || inputs.size() != in.size()) return false;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!(inputs[i] == internal::ImplOf(*in[i])->meta)) return false;
    }
    return attrs == nullptr ? a.empty() : SameAttrs(*attrs, a);
  }
};

class InferCache;
namespace internal_infer {
// This thread's cache; null until its first lookup misses (then created),
// and again once the thread's thread_locals are destroyed.
extern constinit thread_local InferCache* t_cache;
}  // namespace internal_infer

class InferCache {
 public:
  static constexpr int kSlots = 16;

  // The calling thread's remembered inference of this call, or null (then
  // Find, and Insert on a miss). Inline, no hashing: the thread's last call
  // only. Valid until the thread's next Insert.
  static const InferEntry* FindLast(const OpDef& def, absl::Span<const Tensor* const> inputs,
                                    const Attrs& attrs) {
    const InferCache* cache = internal_infer::t_cache;
    if (cache == nullptr || cache->last_ == nullptr) [[unlikely]]
      return nullptr;
    return cache->last_->Matches(def, inputs, attrs) ? cache->last_ : nullptr;
  }

  // The calling thread's cache, created on first use; null once the thread
  // is being torn down (an op called from a later thread_local destructor:
  // it then infers as if nothing were cached).
  static InferCache* ForThisThread();

  // The key's hash: the op, every input's meta and the attrs.
  static uint64_t Hash(const OpDef& def, absl::Span<const Tensor* const> inputs,
                       const Attrs& attrs);

  // The remembered inference of this call from the table (it becomes the
  // last call), or null. Valid until the next Insert on this thread.
  const InferEntry* Find(const OpDef& def, uint64_t hash, absl::Span<const Tensor* const> inputs,
                         const Attrs& attrs);
  // Remembers an inference (replacing whatever shared its slot; it becomes
  // the last call) and returns it; valid until the next Insert on this thread.
  const InferEntry* Insert(InferEntry entry);

 private:
  std::array<InferEntry, kSlots> slots_;
  const InferEntry* last_ = nullptr;
};

}  // namespace eagervm::internal

#endif  // EAGERVM_OPS_INFER_CACHE_H_
