#include "models/digits.h"

#include <zlib.h>

#include <charconv>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace eagervm::models {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};

// Parses one CSV row of 65 integers into `d`.
absl::Status ParseRow(std::string_view line, int64_t line_no, Digits* d) {
  const char* p = line.data();
  const char* end = p + line.size();
  for (int col = 0; col <= Digits::kPixels; ++col) {
    int value = 0;
    auto [next, ec] = std::from_chars(p, end, value);
    if (ec != std::errc() || (col < Digits::kPixels && (value < 0 || value > 16)) ||
        (col == Digits::kPixels && (value < 0 || value >= Digits::kClasses))) {
      return absl::InvalidArgumentError(
          absl::StrCat("digits: line ", line_no, ", column ", col + 1, ": expected ",
                       col < Digits::kPixels ? "a pixel in 0..16" : "a label in 0..9"));
    }
    if (col < Digits::kPixels) {
      d->images.push_back(static_cast<float>(value) / 16.0f);
    } else {
      d->labels.push_back(value);
    }
    p = next;
    if (col < Digits::kPixels) {
      if (p == end || *p != ',') {
        return absl::InvalidArgumentError(absl::StrCat("digits: line ", line_no, " has ", col + 1,
                                                       " columns, expected ", Digits::kPixels + 1));
      }
      ++p;
    }
  }
  while (p != end && (*p == '\r' || *p == ' ')) ++p;
  if (p != end) {
    return absl::InvalidArgumentError(
        absl::StrCat("digits: line ", line_no, " has more than ", Digits::kPixels + 1, " columns"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Digits> LoadDigits(const std::string& path) {
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("digits: cannot open ", path,
                                            " (Debian: apt install python3-sklearn, or "
                                            "scripts/install_peers.sh)"));
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f.get(), buf, sizeof(buf));
    if (n < 0) {
      int err = 0;
      return absl::DataLossError(absl::StrCat("digits: ", path, ": ", gzerror(f.get(), &err)));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  Digits d;
  int64_t line_no = 0;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    ++line_no;
    std::string_view line(text.data() + start, nl - start);
    start = nl + 1;
    if (line.empty()) continue;
    if (absl::Status s = ParseRow(line, line_no, &d); !s.ok()) return s;
  }
  if (d.size() == 0) return absl::InvalidArgumentError(absl::StrCat("digits: ", path, " is empty"));
  return d;
}

}  // namespace eagervm::models
