// Tracing: the JSON of a small program has one compute slice per executed
// instruction with the right names, named rows, nesting slices per row, and
// the session API's errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"
#include "queued_path.h"  // these tests watch which thread runs what

namespace eagervm {
namespace {

using nlohmann::json;

std::string TempPath(const char* name) {
  return ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid()) + ".json";
}

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);  // throws (fails the test) on malformed JSON
}

struct Row {
  std::string name;
  std::vector<json> slices;
};

std::map<int, Row> Rows(const json& trace) {
  std::map<int, Row> rows;
  for (const json& e : trace.at("traceEvents")) {
    const int tid = e.at("tid").get<int>();
    if (e.at("ph") == "M" && e.at("name") == "thread_name") {
      rows[tid].name = e.at("args").at("name").get<std::string>();
    } else if (e.at("ph") == "X") {
      rows[tid].slices.push_back(e);
    }
  }
  return rows;
}

// Slices on one row must nest: sorted by start, each one ends before the
// enclosing one ends.
void ExpectNested(const Row& row) {
  std::vector<std::pair<double, double>> spans;
  for (const json& s : row.slices) {
    const double ts = s.at("ts").get<double>();
    spans.emplace_back(ts, ts + s.at("dur").get<double>());
  }
  std::sort(spans.begin(), spans.end(), [](auto& a, auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  std::vector<double> open_ends;
  for (const auto& [begin, end] : spans) {
    EXPECT_GE(begin, 0.0) << row.name;
    while (!open_ends.empty() && open_ends.back() <= begin) open_ends.pop_back();
    if (!open_ends.empty()) {
      EXPECT_LE(end, open_ends.back() + 1e-9) << "slice overlaps its parent on row " << row.name;
    }
    open_ends.push_back(end);
  }
}

TEST(Trace, SmallProgramHasOneComputeSlicePerInstruction) {
  ASSERT_TRUE(Sync().ok());
  const VmStats before = VirtualMachine::Get().GetStats();
  ASSERT_TRUE(StartTrace().ok());
  EXPECT_TRUE(IsTracing());
  {
    // 32 KiB each: over VmOptions::inline_max_bytes, so the ops compute on
    // the stream workers rather than inline on the scheduler.
    Tensor a = Full({8192}, 1.0f, DType::kFloat32);
    Tensor b = Full({8192}, 2.0f, DType::kFloat32);
    Tensor c = ops::Add(a, b);
    Tensor d;
    {
      StreamScope scope(Stream(Device::Cpu(), 1));
      d = ops::Add(c, a);
    }
    ASSERT_TRUE(ops::AddInplace(d, b).ok());
    auto all = d.ToVector<float>();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ((*all)[0], 6.0f);
    ASSERT_TRUE(Sync().ok());
  }  // four tensors dropped: four ReleaseTensor instructions
  const std::string path = TempPath("trace_small");
  ASSERT_TRUE(StopTrace(path).ok());
  EXPECT_FALSE(IsTracing());
  const VmStats after = VirtualMachine::Get().GetStats();
  const uint64_t received = after.received - before.received;

  const json trace = ReadJson(path);
  std::map<int, Row> rows = Rows(trace);
  std::map<std::string, int> compute;
  int64_t submitted = 0, compute_slices = 0;
  for (const auto& [tid, row] : rows) {
    EXPECT_FALSE(row.name.empty()) << "row " << tid << " has no thread_name";
    ExpectNested(row);
    for (const json& s : row.slices) {
      if (s.at("cat") == "compute") {
        ++compute[s.at("name").get<std::string>()];
        ++compute_slices;
        if (s.at("name") == "Add" || s.at("name") == "Full") {
          EXPECT_EQ(row.name.rfind("evm-cpu", 0), 0u) << "ops compute on stream workers";
        }
        // On the scheduler, or on the thread calling Sync() when it finds the
        // VM idle (it then runs the barrier itself: vm/lifecycle/donate.h).
        if (s.at("name") == "Barrier") {
          EXPECT_TRUE(row.name == "evm-scheduler" || row.name.rfind("user ", 0) == 0) << row.name;
        }
      } else if (s.at("cat") == "submit") {
        submitted += s.at("args").at("n").get<int64_t>();
        EXPECT_EQ(row.name.rfind("user ", 0), 0u) << row.name;
      }
    }
  }
  EXPECT_EQ(compute["Full"], 2);  // named as the user called it (the Fill op)
  EXPECT_EQ(compute["Add"], 2);
  EXPECT_EQ(compute["AddInplace"], 1);
  EXPECT_EQ(compute["AccessBlob(read)"], 1);
  EXPECT_EQ(compute["ReleaseTensor"], 4);
  EXPECT_EQ(compute["Barrier"], 2);  // Sync() and StopTrace's drain
  // Every instruction received during the session ran inside it, once.
  EXPECT_EQ(static_cast<uint64_t>(compute_slices), received);
  EXPECT_EQ(static_cast<uint64_t>(submitted), received);

  bool has_scheduler = false, has_stream1 = false, has_in_flight = false;
  for (const auto& [tid, row] : rows) {
    has_scheduler |= row.name == "evm-scheduler";
    has_stream1 |= row.name == "evm-cpu1";
  }
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "C" && e.at("name") == "in flight") has_in_flight = true;
  }
  EXPECT_TRUE(has_scheduler);
  EXPECT_TRUE(has_stream1);
  EXPECT_TRUE(has_in_flight);
  std::remove(path.c_str());
}

TEST(Trace, WorkBetweenSessionsIsNotRecorded) {
  Tensor outside = Full({4}, 3.0f, DType::kFloat32);
  ASSERT_TRUE(Sync().ok());
  ASSERT_TRUE(StartTrace().ok());
  Tensor inside = ops::Add(outside, outside);
  ASSERT_TRUE(inside.Wait().ok());
  const std::string path = TempPath("trace_between");
  ASSERT_TRUE(StopTrace(path).ok());
  Tensor after = ops::Add(inside, inside);  // recorded nowhere
  ASSERT_TRUE(after.Wait().ok());
  const json trace = ReadJson(path);
  int fills = 0, adds = 0;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") != "compute") continue;
    fills += e.at("name") == "Full";
    adds += e.at("name") == "Add";
  }
  EXPECT_EQ(fills, 0);
  EXPECT_EQ(adds, 1);
  std::remove(path.c_str());
}

TEST(Trace, EachUserThreadGetsItsOwnRow) {
  ASSERT_TRUE(StartTrace().ok());
  auto work = [] {
    Tensor x = Full({8}, 1.0f, DType::kFloat32);
    for (int i = 0; i < 10; ++i) EXPECT_TRUE(ops::AddInplace(x, x).ok());
    EXPECT_TRUE(x.Wait().ok());
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  const std::string path = TempPath("trace_threads");
  ASSERT_TRUE(StopTrace(path).ok());
  int user_rows_with_submits = 0;
  for (const auto& [tid, row] : Rows(ReadJson(path))) {
    const bool submits = std::any_of(row.slices.begin(), row.slices.end(),
                                     [](const json& s) { return s.at("cat") == "submit"; });
    user_rows_with_submits += submits && row.name.rfind("user ", 0) == 0;
  }
  EXPECT_GE(user_rows_with_submits, 2);
  std::remove(path.c_str());
}

TEST(Trace, SessionErrors) {
  EXPECT_EQ(StopTrace(TempPath("never")).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(StartTrace().ok());
  EXPECT_EQ(StartTrace().code(), absl::StatusCode::kFailedPrecondition);
  const absl::Status bad = StopTrace("/nonexistent-dir/eagervm/trace.json");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("/nonexistent-dir/eagervm/trace.json"), std::string::npos) << bad;
  EXPECT_FALSE(IsTracing()) << "a failed write still ends the session";
  ASSERT_TRUE(StartTrace().ok());  // and a new one can start
  ASSERT_TRUE(StopTrace(TempPath("again")).ok());
  std::remove(TempPath("again").c_str());
}

TEST(Trace, KernelsCannotStartTraces) {
  static absl::StatusCode seen = absl::StatusCode::kOk;
  ASSERT_TRUE(RegisterOp("TraceFromKernel",
                         [](const std::vector<TensorMeta>& in,
                            const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> { return in; })
                  .ok());
  ASSERT_TRUE(RegisterKernel("TraceFromKernel", DeviceType::kCPU, [](KernelContext&) {
                seen = StartTrace().code();
                return absl::OkStatus();
              }).ok());
  auto out = ops::Call("TraceFromKernel", {Full({1}, 1.0f, DType::kFloat32)});
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(seen, absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(IsTracing());
}

}  // namespace
}  // namespace eagervm
