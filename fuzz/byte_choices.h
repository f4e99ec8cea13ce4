// ByteChoices: a fuzzer input read as a stream of choices, for both targets.
#ifndef EAGERVM_FUZZ_BYTE_CHOICES_H_
#define EAGERVM_FUZZ_BYTE_CHOICES_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "random_program.h"

namespace eagervm::fuzz {

// Each choice reads as few bytes as its range needs (big endian); once the
// bytes run out every choice is 0 and exhausted() turns true.
class ByteChoices final : public testing::ChoiceSource {
 public:
  ByteChoices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t Below(uint64_t n) override {
    uint64_t v = 0;
    for (uint64_t range = 1; range < n && range != 0; range <<= 8) {
      if (pos_ == size_) {
        exhausted_ = true;
        return 0;
      }
      v = (v << 8) | data_[pos_++];
    }
    return v % n;
  }
  bool exhausted() const override { return exhausted_; }
  bool at_end() const { return pos_ == size_; }
  uint8_t Byte() { return static_cast<uint8_t>(Below(256)); }
  std::string Rest() {
    std::string rest(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
    pos_ = size_;
    return rest;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool exhausted_ = false;
};

}  // namespace eagervm::fuzz

#endif  // EAGERVM_FUZZ_BYTE_CHOICES_H_
