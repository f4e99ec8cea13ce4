// Graph vs eager on random programs with views of every kind, in-place ops
// on parameters and views, aliasing inputs, inputs passed twice, impure and
// failing custom ops, outputs aliasing inputs and storages written only in
// part through views (tests/graph_program.h; fuzz/graph_fuzzer.cc explores
// the same programs from libFuzzer bytes).
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

// Aliased bound slots: a write through one alias, then a read through the
// other, for every binding where two of the function's tensors share a
// storage (one view passed twice, overlapping views of one tensor, an input
// that is a parameter, overlapping views of a parameter).
TEST(GraphViewsDifferential, WritesThroughOneAliasAreReadThroughTheOther) {
  using Step = testing::GraphStep;
  // Pool: 0, 1 inputs; 2, 3 views of p0; 4 p1; 5 p2 (partly written).
  const std::vector<std::vector<Step>> programs = {
      {{2, 0, 4, 0}, {0, 1, 2, 0}},         // in0 += p1; in1 + p0[0:4]
      {{3, 1, 0, -2}, {4, 0, 0, 0}},        // in1 *= -2; tanh(in0)
      {{14, 0, 0, 1.5f, 4}, {1, 1, 0, 2}},  // in0[1:3] = 1.5; in1 * 2
      {{5, 4, 0, 0}, {0, 1, 4, 0}},         // p1 = in0; in1 + p1
      {{2, 2, 1, 0}, {0, 1, 3, 0}},         // p0[0:4] += in1; in1 + p0[4:8]
      {{15, 1, 0, 0, 1}, {0, 0, 1, 0}},     // in1[0:2] = in0[0:2]; in0 + in1
      {{11, 0, 0, 3}, {3, 1, 0, 0.5f}},     // in0 = 3; in1 *= 0.5
  };
  for (int binding : {1, 2, 3, 5}) {
    for (size_t p = 0; p < programs.size(); ++p) {
      testing::GraphProgramSpec spec;
      spec.steps = programs[p];
      spec.outputs[0] = 6;  // the last value made (or wraps into the pool)
      spec.outputs[1] = 1;
      spec.runs = 3;
      spec.bindings.assign(3, binding);
      spec.seeds = {1, -2, 0.5f};
      const std::string diff = testing::RunGraphProgram(spec);
      EXPECT_EQ(diff, "") << "binding " << binding << ", program " << p;
    }
  }
}

}  // namespace
}  // namespace eagervm
