// SmallVector<T, N>: a vector of trivially copyable T that keeps up to N
// elements inline and spills to the heap beyond. Unlike absl::InlinedVector
// it keeps one data pointer that is always valid (inline or heap), so an
// element access is a load and an index, with no inline-or-heap branch: the
// VM's per-instruction lists (operands, accesses, successors) are read on
// every op on the scheduler's hot path (docs/performance.md).
//
// clear() keeps a heap block for reuse: instructions come from a pool, and
// one that once needed more than N keeps its room. Not thread-safe; the
// owner's thread rules apply.
#ifndef EAGERVM_BASE_SMALL_VECTOR_H_
#define EAGERVM_BASE_SMALL_VECTOR_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace eagervm::base {

template <typename T, uint32_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "SmallVector moves its elements with memcpy");
  static_assert(N > 0);

 public:
  SmallVector() = default;
  SmallVector(const SmallVector& other) { CopyFrom(other); }
  SmallVector(SmallVector&& other) noexcept { MoveFrom(&other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) {
      size_ = 0;
      CopyFrom(other);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      FreeHeap();
      MoveFrom(&other);
    }
    return *this;
  }
  ~SmallVector() {
    if (on_heap()) std::free(data_);
  }

  uint32_t size() const { return size_; }
  // True while no heap block is held (the destructor then does nothing).
  bool is_inline() const { return !on_heap(); }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& back() { return data_[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == capacity_) [[unlikely]]
      Grow(size_ + 1);
    data_[size_++] = v;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) [[unlikely]]
      Grow(size_ + 1);
    T* p = new (data_ + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  // Appends n elements left for the caller to write, and returns the first.
  [[gnu::always_inline]] T* append_uninitialized(uint32_t n) {
    if (size_ + n > capacity_) [[unlikely]]
      Grow(size_ + n);
    T* p = data_ + size_;
    size_ += n;
    return p;
  }
  void reserve(uint32_t n) {
    if (n > capacity_) Grow(n);
  }
  void clear() { size_ = 0; }
  // Keeps the first n elements (n <= size()), e.g. after std::remove_if.
  void truncate(uint32_t n) { size_ = n; }

 private:
  bool on_heap() const { return data_ != reinterpret_cast<const T*>(inline_storage_); }
  void FreeHeap() {
    if (on_heap()) std::free(data_);
    data_ = inline_data();
    capacity_ = N;
  }
  void Grow(uint32_t at_least) {
    uint32_t cap = capacity_ * 2;
    if (cap < at_least) cap = at_least;
    T* p = static_cast<T*>(std::malloc(sizeof(T) * cap));
    if (p == nullptr) throw std::bad_alloc();
    std::memcpy(static_cast<void*>(p), data_, sizeof(T) * size_);
    if (on_heap()) std::free(data_);
    data_ = p;
    capacity_ = cap;
  }
  void CopyFrom(const SmallVector& other) {
    reserve(other.size_);
    std::memcpy(static_cast<void*>(data_), other.data_, sizeof(T) * other.size_);
    size_ = other.size_;
  }
  void MoveFrom(SmallVector* other) {
    if (other->on_heap()) {
      data_ = other->data_;
      capacity_ = other->capacity_;
      size_ = other->size_;
      other->data_ = other->inline_data();
      other->capacity_ = N;
    } else {
      data_ = inline_data();
      capacity_ = N;
      std::memcpy(static_cast<void*>(data_), other->data_, sizeof(T) * other->size_);
      size_ = other->size_;
    }
    other->size_ = 0;
  }

  T* inline_data() { return reinterpret_cast<T*>(inline_storage_); }

  T* data_ = reinterpret_cast<T*>(inline_storage_);  // inline_storage_ or a heap block
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
  alignas(T) unsigned char inline_storage_[sizeof(T) * N];
};

}  // namespace eagervm::base

#endif  // EAGERVM_BASE_SMALL_VECTOR_H_
