// Helpers shared by the graph-mode tests: a float32 CPU meta, and a Run
// whose failure fails the test (an empty result then).
#ifndef EAGERVM_TESTS_GRAPH_TEST_UTIL_H_
#define EAGERVM_TESTS_GRAPH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "ops_test_util.h"

namespace eagervm::testing {

inline TensorMeta F32(Shape s) { return TensorMeta{std::move(s), DType::kFloat32, Device::Cpu()}; }

inline std::vector<Tensor> RunOk(const Graph& g, std::vector<Tensor> in) {
  absl::StatusOr<std::vector<Tensor>> out = g.Run(in);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>{};
}

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_GRAPH_TEST_UTIL_H_
