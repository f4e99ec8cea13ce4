// A graph run shows its nodes in the Chrome trace: one slice per node
// (category "graph", the op's name) besides the launch's compute slice.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "ops_test_util.h"

namespace eagervm {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(GraphTrace, EachNodeIsASliceWhenTracing) {
  absl::StatusOr<Graph> g = Graph::Capture(
      {TensorMeta{Shape({4}), DType::kFloat32, Device::Cpu()}}, [](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{ops::Tanh(ops::Sigmoid(in[0]))};
      });
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string path = ::testing::TempDir() + "/graph_trace_test.json";
  ASSERT_TRUE(StartTrace().ok());
  constexpr int kRuns = 3;
  for (int r = 0; r < kRuns; ++r) {
    ASSERT_TRUE(g->Run({testing::Make<float>({1, 2, 3, 4}, {4})}).ok());
  }
  ASSERT_TRUE(Sync().ok());
  ASSERT_TRUE(StopTrace(path).ok());
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string trace = ss.str();
  EXPECT_EQ(Count(trace, "\"name\":\"Sigmoid\""), kRuns) << trace.substr(0, 2000);
  EXPECT_EQ(Count(trace, "\"name\":\"Tanh\""), kRuns);
  EXPECT_GE(Count(trace, "\"name\":\"LaunchPlan\""), kRuns);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace eagervm
