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

#include "byte_choices.h"
#include "random_program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  eagervm::testing::ProgramOptions opts;
  opts.num_ops = 400;  // the bytes end most programs first
  opts.read_per_mille = 30;
  opts.custom_per_mille = 80;
  opts.sync_per_mille = 20;
  opts.final_sync = true;
  // The first byte picks the dtype, the rest are the program.
  eagervm::fuzz::ByteChoices choices(data + 1, size - 1);
  const std::string failure = (data[0] & 1)
                                  ? eagervm::testing::detail::Program<int64_t>(&choices, opts).Run()
                                  : eagervm::testing::detail::Program<float>(&choices, opts).Run();
  if (!failure.empty()) {
    std::fprintf(stderr, "program_fuzzer: %s\n", failure.c_str());
    std::abort();  // libFuzzer saves the input as a crash
  }
  return 0;
}
