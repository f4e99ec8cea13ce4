// VmImpl::DumpState: the scheduler thread owns the engine's lists, so a dump
// is a request it answers between passes; a user thread never reads them.
#include "base/str_cat.h"
#include "base/sync_waiter.h"
#include "vm/lifecycle/vm_impl.h"

namespace eagervm::vm {

struct VmImpl::DumpRequest {
  size_t max_instructions = 0;
  std::string text;  // written by the scheduler before `done` is signalled
  base::SyncWaiter done;
};

void VmImpl::ServeDumpRequests() {
  std::vector<std::shared_ptr<DumpRequest>> requests;
  {
    base::MutexLock lock(&dump_mu_);
    requests.swap(dump_requests_);
    dump_requested_.store(false, std::memory_order_relaxed);
  }
  for (const auto& r : requests) {
    r->text = engine_.Describe(r->max_instructions);
    r->done.Signal();
  }
}

std::string VmImpl::DumpState(size_t max_instructions) {
  std::string out = base::Cat("eagervm VM: ", GetStats().ToString(), "\n");
  if (shut_down()) return out + "shut down\n";
  if (options_.synchronous) {
    // No scheduler thread: the engine is driven by whichever thread submits.
    if (!engine_mu_.TryLock()) {
      return out + "synchronous mode: another thread is computing right now\n";
    }
    out += engine_.Describe(max_instructions);
    engine_mu_.Unlock();
    return out;
  }
  auto request = std::make_shared<DumpRequest>();
  request->max_instructions = max_instructions;
  {
    base::MutexLock lock(&dump_mu_);
    dump_requests_.push_back(request);
    dump_requested_.store(true, std::memory_order_relaxed);
  }
  scheduler_notifier_.Notify();
  constexpr int64_t kAnswerWithinNs = 500'000'000;
  if (request->done.WaitFor(/*spin_ns=*/0, kAnswerWithinNs)) return out + request->text;
  // The request stays queued (shared): a scheduler that wakes up later answers it.
  const char* op = engine_.inline_op();
  return out + base::Cat("the scheduler thread did not answer within 0.5 s: it is blocked",
                         op != nullptr
                             ? base::Cat(" running op '", op, "' inline (a kernel that blocks)")
                             : std::string(" (in a kernel it runs inline or a callback)"),
                         "\n");
}

}  // namespace eagervm::vm
