// Graph vs eager on random programs with views of every kind, in-place ops
// on parameters and views, aliasing inputs, inputs passed twice, impure and
// failing custom ops and outputs aliasing inputs (tests/graph_program.h;
// fuzz/graph_fuzzer.cc explores the same programs from libFuzzer bytes).
#include <gtest/gtest.h>

#include "graph_program.h"

namespace eagervm {
namespace {

constexpr int kPrograms = testing::kSanitized ? 60 : 300;

TEST(GraphViewsDifferential, RandomProgramsEqualEager) {
  for (int seed = 0; seed < kPrograms; ++seed) {
    testing::RngChoices choices(0x9e3779b9u + seed);
    const testing::GraphProgramSpec spec = testing::GenerateGraphProgram(choices, 24);
    const std::string diff = testing::RunGraphProgram(spec);
    ASSERT_EQ(diff, "") << "seed " << seed;
  }
}

}  // namespace
}  // namespace eagervm
