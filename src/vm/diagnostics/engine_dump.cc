// Engine::Describe: the lively instructions as text, for hang diagnostics
// and VirtualMachine::DumpState(). Slow on purpose: nothing here is on the
// scheduling path.
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/spin.h"
#include "base/str_cat.h"
#include "vm/engine/engine.h"
#include "vm/streams/vm_stream.h"

namespace eagervm::vm {
namespace {

std::string Label(const Instruction* i) {
  return base::Cat("#", i->id(), " ", i->policy() != nullptr ? i->policy()->name() : "?");
}

}  // namespace

std::string Engine::Describe(size_t max) const {
  // Edges live on the predecessor (its successor lists): invert them.
  absl::flat_hash_map<const Instruction*, std::vector<const Instruction*>> waits_for;
  for (const Instruction* p = lively_head_; p != nullptr; p = p->lively_next) {
    for (const Instruction* s : p->on_dispatch) waits_for[s].push_back(p);
    for (const Instruction* s : p->on_retire) waits_for[s].push_back(p);
  }
  // A worker finishes its stream's running list in order: the first one not
  // done is computing, the others not done wait behind it.
  absl::flat_hash_map<const Instruction*, const Instruction*> queued_behind;
  for (const VmStream* s : active_streams_) {
    const Instruction* computing = nullptr;
    for (const Instruction* i = s->running.head; i != nullptr; i = i->next) {
      if (i->done()) continue;
      if (computing == nullptr) {
        computing = i;
      } else {
        queued_behind[i] = computing;
      }
    }
  }
  const int64_t now = base::NowNanos();
  std::string out = base::Cat(lively_count_, " lively instruction(s), oldest first:\n");
  size_t n = 0;
  for (const Instruction* i = lively_head_; i != nullptr; i = i->lively_next, ++n) {
    if (n == max) {
      out += base::Cat("  ... and ", lively_count_ - max, " more\n");
      break;
    }
    const Stream s = i->stream() != nullptr ? i->stream()->id() : Stream::Default(Device::Cpu());
    out += base::Cat("  ", Label(i), " on ", s.device().ToString(), " stream ", s.index(), ": ",
                     ToString(i->state()));
    if (i->state() == InstrState::kRunning) {
      auto behind = queued_behind.find(i);
      if (i->done()) {
        out += " (computed, waiting for release)";
      } else if (behind != queued_behind.end()) {
        out += base::Cat(" (queued behind ", Label(behind->second), " on its stream)");
      } else {
        out += " (computing)";
      }
      if (stamp_dispatch_ && !i->done() && behind == queued_behind.end()) {
        out += base::Cat(", running for ", (now - i->dispatched_ns) / 1'000'000, " ms");
      }
    }
    if (auto it = waits_for.find(i); it != waits_for.end()) {
      out += ", waits for";
      for (const Instruction* p : it->second) out += base::Cat(" ", Label(p));
    }
    out += "\n";
  }
  return out;
}

}  // namespace eagervm::vm
