#include "ops/infer_cache.h"

#include <bit>
#include <string>
#include <type_traits>
#include <variant>

#include "absl/hash/hash.h"

namespace eagervm::internal {

namespace internal_infer {
constinit thread_local InferCache* t_cache = nullptr;
}  // namespace internal_infer

namespace {

// Set when this thread's cache is destroyed, so that an op called from a
// later thread_local destructor does not make a new one (that one would
// never be freed). Trivially destructible, so it outlives every non-trivial
// thread_local.
constinit thread_local bool t_cache_destroyed = false;

// Owns the thread's cache; touched only when the cache is made, so the
// lookups read a plain pointer, not a thread_local with a destructor (whose
// every access checks an init guard).
struct CacheOwner {
  std::unique_ptr<InferCache> cache;
  ~CacheOwner() {
    internal_infer::t_cache = nullptr;
    t_cache_destroyed = true;
  }
};

inline uint64_t Mix(uint64_t h, uint64_t v) {
  // One multiply-xorshift round per word (the finaliser family of
  // murmur/fxhash): good enough to pick one of 16 slots, and a collision
  // only costs a compare.
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

uint64_t DoubleBits(double d) { return std::bit_cast<uint64_t>(d); }

uint64_t HashAttr(const std::string& key, const AttrValue& value) {
  const uint64_t v = std::visit(
      [](const auto& x) -> uint64_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, double>) {
          return DoubleBits(x);  // as SameAttrs compares: by the bits
        } else {
          return absl::Hash<T>{}(x);
        }
      },
      value);
  return Mix(Mix(absl::Hash<std::string>{}(key), value.index()), v);
}

}  // namespace

bool SameAttrs(const Attrs& a, const Attrs& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a) {
    auto it = b.find(key);
    if (it == b.end() || it->second.index() != value.index()) return false;
    if (const double* d = std::get_if<double>(&value)) {
      if (DoubleBits(*d) != DoubleBits(std::get<double>(it->second))) return false;
    } else if (!(it->second == value)) {
      return false;
    }
  }
  return true;
}

InferCache* InferCache::ForThisThread() {
  if (internal_infer::t_cache != nullptr) [[likely]]
    return internal_infer::t_cache;
  if (t_cache_destroyed) return nullptr;
  thread_local CacheOwner owner;
  owner.cache = std::make_unique<InferCache>();
  internal_infer::t_cache = owner.cache.get();
  return internal_infer::t_cache;
}

uint64_t InferCache::Hash(const OpDef& def, absl::Span<const Tensor* const> inputs,
                          const Attrs& attrs) {
  uint64_t h = Mix(reinterpret_cast<uintptr_t>(&def), inputs.size());
  for (const Tensor* t : inputs) {
    const TensorMeta& m = internal::ImplOf(*t)->meta;
    h = Mix(h, static_cast<uint64_t>(m.shape.rank()) | static_cast<uint64_t>(m.dtype) << 8 |
                   static_cast<uint64_t>(m.device.type()) << 16 |
                   static_cast<uint64_t>(static_cast<uint32_t>(m.device.index())) << 32);
    for (int64_t d : m.shape) h = Mix(h, static_cast<uint64_t>(d));
  }
  // The attrs' order in the map is not part of their value: their hashes add.
  uint64_t a = 0;
  for (const auto& [key, value] : attrs) a += HashAttr(key, value);
  return a != 0 ? Mix(h, a) : h;
}

const InferEntry* InferCache::Find(const OpDef& def, uint64_t hash,
                                   absl::Span<const Tensor* const> inputs, const Attrs& attrs) {
  const InferEntry& e = slots_[hash % kSlots];
  if (e.hash != hash || !e.Matches(def, inputs, attrs)) return nullptr;
  last_ = &e;
  return &e;
}

const InferEntry* InferCache::Insert(InferEntry entry) {
  InferEntry& slot = slots_[entry.hash % kSlots];
  slot = std::move(entry);
  last_ = &slot;
  return &slot;
}

}  // namespace eagervm::internal
