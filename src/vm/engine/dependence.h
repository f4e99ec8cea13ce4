// Dependence: the ordering state of one storage (views share their base's).
// Touched only by the scheduler thread.
//
// Rules: a read gets an edge from the last writer; a write gets
// edges from the last writer and every reader since, then becomes the last
// writer. References to instructions are (pointer, id) pairs: instructions are
// pooled and never freed, and a retired instruction's id changes, so a stale
// reference is detected without unlinking anything at retirement.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_ENGINE_DEPENDENCE_H_
#define EAGERVM_VM_ENGINE_DEPENDENCE_H_

#include <cstdint>

#include "base/small_vector.h"

namespace eagervm::vm {

class Instruction;

struct InstrRef {
  Instruction* instr = nullptr;
  uint64_t id = 0;
  // The instruction it names has not been retired since the reference was
  // taken (defined in vm/engine/instruction.h).
  bool alive() const;
};

struct Dependence {
  InstrRef last_writer;
  base::SmallVector<InstrRef, 2> readers;
  // Retired readers are dropped from `readers` when it reaches this size;
  // the bound then doubles past the live ones, so a tensor read by many ops
  // in flight (a shared constant) costs amortised O(1) per read, not O(n).
  static constexpr size_t kCompactReadersAbove = 16;
  size_t compact_readers_at = kCompactReadersAbove;
};

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_ENGINE_DEPENDENCE_H_
