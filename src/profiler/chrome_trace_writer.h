// ChromeTraceWriter: a TraceSink that writes the Chrome trace-event JSON
// format, which Perfetto (ui.perfetto.dev) and chrome://tracing open.
// Rows are named with thread_name/thread_sort_index metadata; slices are
// complete ("X") events, counters "C" events; times are microseconds with
// nanosecond decimals, relative to the start of the session.
#ifndef EAGERVM_PROFILER_CHROME_TRACE_WRITER_H_
#define EAGERVM_PROFILER_CHROME_TRACE_WRITER_H_

#include <string>
#include <string_view>

#include "profiler/trace_sink.h"

namespace eagervm::profiler {

class ChromeTraceWriter final : public TraceSink {
 public:
  // `path` is written at Finish(); an empty path writes nothing (json() only).
  explicit ChromeTraceWriter(std::string path) : path_(std::move(path)) {}

  void Begin(const SessionInfo& session) override;
  void OnThread(const ThreadInfo& thread) override;
  void OnEvent(const ThreadInfo& thread, const TraceEvent& event) override;
  [[nodiscard]] absl::Status Finish(uint64_t dropped_events) override;

  // The whole document, after Finish().
  const std::string& json() const { return json_; }

 private:
  void Separator();
  void AppendTime(int64_t ns);

  std::string path_;
  std::string json_;
  bool first_ = true;
  int64_t start_ns_ = 0;
};

// Appends `s` to `out` as a JSON string literal (with quotes).
void AppendJsonString(std::string* out, std::string_view s);

}  // namespace eagervm::profiler

#endif  // EAGERVM_PROFILER_CHROME_TRACE_WRITER_H_
