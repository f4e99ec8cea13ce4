// PhysicalRun for the runtime's own code, and the hook graph capture uses to
// stand in for the eager builder on one thread.
#include "vm/internal_only.h"  // not exported: src/vm/README.md
#ifndef EAGERVM_VM_INTAKE_PHYSICAL_RUN_H_
#define EAGERVM_VM_INTAKE_PHYSICAL_RUN_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "vm/intake/builder.h"
#include "vm/intake/eager_builder.h"

namespace eagervm::vm {

namespace internal_run {
// This thread's recorder (graph capture), or null: eager.
extern constinit thread_local Builder* t_recorder;
// This thread's outermost EagerBuilder while a build callback runs, or null.
extern constinit thread_local EagerBuilder* t_eager;
// Sets t_eager for a scope (also when a build callback throws).
struct EagerScope {
  explicit EagerScope(EagerBuilder* b) { t_eager = b; }
  ~EagerScope() { t_eager = nullptr; }
};
absl::Status RunRecorded(Builder* recorder, absl::FunctionRef<absl::Status(Builder*)> build);
}  // namespace internal_run

// True while a PhysicalRun build callback runs on this thread: blocking
// calls there would wait for instructions that are not submitted yet.
inline bool InBuildCallback() {
  return internal_run::t_eager != nullptr || internal_run::t_recorder != nullptr;
}
inline Builder* CurrentRecorder() { return internal_run::t_recorder; }

// Installs `recorder` on this thread for the scope's lifetime; nests,
// restoring the previous one. Other threads keep building eagerly.
class ScopedRecorder {
 public:
  explicit ScopedRecorder(Builder* recorder) : previous_(internal_run::t_recorder) {
    internal_run::t_recorder = recorder;
  }
  ~ScopedRecorder() { internal_run::t_recorder = previous_; }
  ScopedRecorder(const ScopedRecorder&) = delete;
  ScopedRecorder& operator=(const ScopedRecorder&) = delete;

 private:
  Builder* previous_;
};

// Runs `build` (absl::Status(Builder*)) with this thread's builder and hands
// the result to the VM; see the public PhysicalRun for the contract. Inline:
// the eager path is a stack builder and two thread-local accesses.
template <typename F>
absl::Status PhysicalRun(F&& build) {
  using internal_run::t_eager;
  if (Builder* r = internal_run::t_recorder; __builtin_expect(r != nullptr, 0)) {
    return internal_run::RunRecorded(r, [&](Builder* b) { return build(b); });
  }
  if (EagerBuilder* outer = t_eager; outer != nullptr) {  // nested: keep program order
    const size_t mark = outer->Mark();
    absl::Status s = build(static_cast<Builder*>(outer));
    if (!s.ok()) outer->Rollback(mark);
    return s;
  }
  EagerBuilder b;
  absl::Status s;
  {
    internal_run::EagerScope scope(&b);
    // The EagerBuilder itself: a generic callback (`auto* b`) then calls the
    // final class directly; one taking Builder* converts.
    s = build(&b);
  }
  return b.Finish(std::move(s));
}

}  // namespace eagervm::vm

#endif  // EAGERVM_VM_INTAKE_PHYSICAL_RUN_H_
