// libFuzzer target: the input's bytes are the choices of a random program
// (tests/random_program.h: ops in and out of place, views, two streams,
// dropped handles, blocking reads, Sync() mid-program, custom kernels that
// fail), run on the VM and checked bitwise against the sequential reference,
// failures included: each read of a poisoned tensor must return its failure,
// each Sync the failures not yet reported. Every input ends with all its
// tensors dropped and a Sync that must leave no byte in use: the VM lives
// across inputs and must stay exact after failures.
//
//   build: scripts/test.sh fuzz (or cmake -DEAGERVM_FUZZ=ON with clang++)
//   run:   program_fuzzer fuzz/corpus/program   (scripts/fuzz.sh runs longer)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "random_program.h"

namespace {

// Choices read from the input: as few bytes as the range needs, little
// endian; once the bytes run out every choice is 0 and the program stops.
class ByteChoices final : public eagervm::testing::ChoiceSource {
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

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  bool exhausted_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  eagervm::testing::ProgramOptions opts;
  opts.num_ops = 400;  // the bytes end most programs first
  opts.read_per_mille = 30;
  opts.custom_per_mille = 80;
  opts.sync_per_mille = 20;
  opts.final_sync = true;
  // The first byte picks the dtype, the rest are the program.
  ByteChoices choices(data + 1, size - 1);
  const std::string failure = (data[0] & 1)
                                  ? eagervm::testing::detail::Program<int64_t>(&choices, opts).Run()
                                  : eagervm::testing::detail::Program<float>(&choices, opts).Run();
  if (!failure.empty()) {
    std::fprintf(stderr, "program_fuzzer: %s\n", failure.c_str());
    std::abort();  // libFuzzer saves the input as a crash
  }
  return 0;
}
