#include "profiler/chrome_trace_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/str_cat.h"

namespace eagervm::profiler {

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(*out), "\\u{:04x}", static_cast<int>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void ChromeTraceWriter::Separator() {
  if (!first_) json_ += ",\n";
  first_ = false;
}

// Microseconds with three decimals: exact nanoseconds, no float rounding.
void ChromeTraceWriter::AppendTime(int64_t ns) {
  fmt::format_to(std::back_inserter(json_), "{}.{:03d}", ns / 1000, static_cast<int>(ns % 1000));
}

void ChromeTraceWriter::Begin(const SessionInfo& session) {
  start_ns_ = session.start_ns;
  json_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  first_ = true;
  Separator();
  json_ += R"({"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"eagervm"}})";
}

void ChromeTraceWriter::OnThread(const ThreadInfo& t) {
  Separator();
  fmt::format_to(std::back_inserter(json_),
                 R"({{"ph":"M","pid":1,"tid":{},"name":"thread_name","args":{{"name":)", t.tid);
  AppendJsonString(&json_, t.name);
  json_ += "}}";
  Separator();
  fmt::format_to(
      std::back_inserter(json_),
      R"({{"ph":"M","pid":1,"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})",
      t.tid, t.sort_index);
}

void ChromeTraceWriter::OnEvent(const ThreadInfo& t, const TraceEvent& e) {
  Separator();
  if (e.kind == EventKind::kSlice) {
    fmt::format_to(std::back_inserter(json_), R"({{"ph":"X","pid":1,"tid":{},"cat":)", t.tid);
    AppendJsonString(&json_, e.category);
    json_ += R"(,"name":)";
    AppendJsonString(&json_, e.name);
    json_ += R"(,"ts":)";
    AppendTime(e.ts_ns - start_ns_);
    json_ += R"(,"dur":)";
    AppendTime(e.value);
    if (e.arg >= 0) fmt::format_to(std::back_inserter(json_), R"(,"args":{{"n":{}}})", e.arg);
    json_ += "}";
  } else {
    fmt::format_to(std::back_inserter(json_), R"({{"ph":"C","pid":1,"tid":{},"name":)", t.tid);
    AppendJsonString(&json_, e.name);
    json_ += R"(,"ts":)";
    AppendTime(e.ts_ns - start_ns_);
    fmt::format_to(std::back_inserter(json_), R"(,"args":{{"value":{}}}}})", e.value);
  }
}

absl::Status ChromeTraceWriter::Finish(uint64_t dropped_events) {
  fmt::format_to(std::back_inserter(json_),
                 "\n],\"otherData\":{{\"producer\":\"eagervm\",\"dropped_events\":{}}}}}\n",
                 dropped_events);
  if (path_.empty()) return absl::OkStatus();
  std::FILE* f = std::fopen(path_.c_str(), "wb");
  if (f == nullptr) {
    return absl::FailedPreconditionError(
        base::Cat("StopTrace: cannot open '", path_, "' for writing: ", std::strerror(errno)));
  }
  const size_t written = std::fwrite(json_.data(), 1, json_.size(), f);
  const bool closed = std::fclose(f) == 0;
  if (written != json_.size() || !closed) {
    return absl::DataLossError(
        base::Cat("StopTrace: writing '", path_, "' failed: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace eagervm::profiler
