// libFuzzer target: graph mode against eager execution. The
// input's bytes are the choices of a random program over [4] float32
// tensors (tests/graph_program.h: views of every kind, in-place ops on
// parameters and on views, aliasing inputs, an input passed twice or that is
// a parameter, impure and failing custom ops, outputs aliasing inputs),
// captured once and run several times with the parameters changed eagerly
// between runs. Outputs, parameters, inputs, errors and the side-effect
// counts of the impure ops must equal those of calling the function eagerly.
//
//   build: scripts/test.sh fuzz (or cmake -DEAGERVM_FUZZ=ON with clang++)
//   run:   graph_fuzzer fuzz/corpus/graph   (scripts/fuzz.sh runs longer)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "byte_choices.h"
#include "graph_program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  eagervm::fuzz::ByteChoices choices(data, size);
  const eagervm::testing::GraphProgramSpec spec =
      eagervm::testing::GenerateGraphProgram(choices, 48);
  const std::string failure = eagervm::testing::RunGraphProgram(spec);
  if (!failure.empty()) {
    std::fprintf(stderr, "graph_fuzzer: %s\n", failure.c_str());
    std::abort();  // libFuzzer saves the input as a crash
  }
  return 0;
}
