#include "profiler/tracer.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/str_cat.h"
#include "base/thread_role.h"

namespace eagervm::profiler {
namespace internal {
std::atomic<bool> g_enabled{false};
}  // namespace internal

namespace {

// Every thread that recorded since the last collection. Leaked on purpose:
// threads may record during static destruction.
struct Registry {
  base::Mutex mu;
  std::vector<ThreadBuffer*> buffers ABSL_GUARDED_BY(mu);
  int next_tid ABSL_GUARDED_BY(mu) = 1;
};
Registry& GetRegistry() {
  static auto* r = new Registry;
  return *r;
}

base::Mutex control_mu;              // serialises StartSession/StopSession
std::atomic<uint64_t> g_session{0};  // id of the current (or last) session
int64_t g_start_ns ABSL_GUARDED_BY(control_mu) = 0;

thread_local ThreadBuffer* tls_buffer = nullptr;
thread_local bool tls_exiting = false;

// Retires the thread's buffer when the thread exits; the collector frees it.
struct BufferOwner {
  ~BufferOwner() {
    tls_exiting = true;
    if (tls_buffer != nullptr) tls_buffer->Retire();
    tls_buffer = nullptr;
  }
};

ThreadBuffer* NewBufferForThisThread() {
  char pname[32] = {0};
  pthread_getname_np(pthread_self(), pname, sizeof(pname));
  const base::ThreadRole role = base::CurrentThreadRole();
  Registry& r = GetRegistry();
  base::MutexLock lock(&r.mu);
  const int tid = r.next_tid++;
  std::string name;
  int sort = 0;
  if (role == base::ThreadRole::kScheduler && std::string_view(pname).rfind("evm-", 0) == 0) {
    name = pname;
    sort = 0;
  } else if (role == base::ThreadRole::kWorker) {
    name = pname;
    sort = 100 + tid;
  } else {
    name = base::Cat("user ", pname[0] != '\0' ? pname : "thread", " #", tid);
    sort = 1000 + tid;
  }
  auto* b = new ThreadBuffer(std::move(name), tid, sort);
  r.buffers.push_back(b);
  return b;
}

}  // namespace

const char* Intern(const char* s) {
  struct Interned {
    base::Mutex mu;
    std::set<std::string> strings ABSL_GUARDED_BY(mu);  // nodes never move
  };
  static auto* interned = new Interned;  // leaked: names outlive every trace
  base::MutexLock lock(&interned->mu);
  return interned->strings.insert(s).first->c_str();
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ThreadBuffer* CurrentThreadBuffer() {
  if (tls_buffer != nullptr) return tls_buffer;
  if (tls_exiting) return nullptr;
  static thread_local BufferOwner owner;  // constructed here, destroyed at thread exit
  (void)owner;
  tls_buffer = NewBufferForThisThread();
  return tls_buffer;
}

void EmitSlice(const char* category, const char* name, int64_t start_ns, int64_t end_ns,
               int64_t arg) {
  if (!Enabled()) return;
  ThreadBuffer* b = CurrentThreadBuffer();
  if (b == nullptr) return;
  b->Append(TraceEvent{name, category, start_ns, end_ns - start_ns, arg, EventKind::kSlice},
            g_session.load(std::memory_order_acquire));
}

void EmitCounter(const char* name, int64_t value) {
  if (!Enabled()) return;
  ThreadBuffer* b = CurrentThreadBuffer();
  if (b == nullptr) return;
  b->Append(TraceEvent{name, "counter", NowNs(), value, -1, EventKind::kCounter},
            g_session.load(std::memory_order_acquire));
}

bool SessionActive() { return Enabled(); }

absl::Status StartSession() {
  base::MutexLock lock(&control_mu);
  if (internal::g_enabled.load(std::memory_order_relaxed)) {
    return absl::FailedPreconditionError("StartTrace(): a trace is already being recorded");
  }
  g_start_ns = NowNs();
  g_session.fetch_add(1, std::memory_order_release);
  internal::g_enabled.store(true, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status StopSession(TraceSink* sink) {
  base::MutexLock lock(&control_mu);
  if (!internal::g_enabled.load(std::memory_order_relaxed)) {
    return absl::FailedPreconditionError("StopTrace(): no trace is being recorded");
  }
  internal::g_enabled.store(false, std::memory_order_release);
  const uint64_t session = g_session.load(std::memory_order_relaxed);
  const int64_t start_ns = g_start_ns;
  const int64_t end_ns = NowNs();
  Registry& r = GetRegistry();
  std::vector<ThreadBuffer*> buffers;
  {
    base::MutexLock rlock(&r.mu);
    buffers = r.buffers;
  }
  // A compute that started before the stop finishes its slice first: the
  // VM marks an instruction done inside the slice.
  for (ThreadBuffer* b : buffers) {
    while (b->computing()) std::this_thread::yield();
  }
  std::sort(buffers.begin(), buffers.end(), [](const ThreadBuffer* a, const ThreadBuffer* b) {
    return a->sort_index() < b->sort_index();
  });
  sink->Begin(SessionInfo{start_ns, end_ns});
  uint64_t dropped = 0;
  for (ThreadBuffer* b : buffers) {
    const ThreadInfo t{b->tid(), b->sort_index(), b->name()};
    bool announced = false;
    b->ForEach(session, [&](const TraceEvent& e) {
      if (e.ts_ns < start_ns) return;  // began in an earlier session
      if (!announced) {
        sink->OnThread(t);
        announced = true;
      }
      sink->OnEvent(t, e);
    });
    dropped += b->dropped(session);
  }
  {
    // Buffers of exited threads are read; free them.
    base::MutexLock rlock(&r.mu);
    auto it = std::remove_if(r.buffers.begin(), r.buffers.end(), [](ThreadBuffer* b) {
      if (!b->retired()) return false;
      delete b;
      return true;
    });
    r.buffers.erase(it, r.buffers.end());
  }
  return sink->Finish(dropped);
}

}  // namespace eagervm::profiler
