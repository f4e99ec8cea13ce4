#include "graph/escaped.h"

#include "absl/container/flat_hash_map.h"
#include "base/mutex.h"

namespace eagervm::graph {
namespace {

struct Registry {
  base::Mutex mu;
  // Weak: an address may be reused by a later storage once this one is gone.
  absl::flat_hash_map<const vm::BlobObject*, std::weak_ptr<vm::BlobObject>> blobs
      ABSL_GUARDED_BY(mu);
};
Registry& TheRegistry() {
  static auto* r = new Registry();
  return *r;
}

}  // namespace

void MarkEscaped(const std::shared_ptr<vm::BlobObject>& blob, const absl::Status& status) {
  blob->set_error(std::make_shared<vm::ErrorRecord>(status));
  Registry& r = TheRegistry();
  base::MutexLock lock(&r.mu);
  absl::erase_if(r.blobs, [](const auto& e) { return e.second.expired(); });
  r.blobs[blob.get()] = blob;
}

bool IsEscaped(const vm::BlobObject* blob) {
  Registry& r = TheRegistry();
  base::MutexLock lock(&r.mu);
  auto it = r.blobs.find(blob);
  if (it == r.blobs.end()) return false;
  std::shared_ptr<vm::BlobObject> alive = it->second.lock();
  return alive != nullptr && alive.get() == blob;
}

}  // namespace eagervm::graph
