#include "base/byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "base/str_cat.h"

namespace eagervm::base {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

struct Unit {
  std::string_view name;
  double factor;
};
constexpr double kKi = 1024.0;
constexpr double kMi = kKi * kKi;
constexpr double kGi = kMi * kKi;
constexpr double kTi = kGi * kKi;
constexpr Unit kUnits[] = {
    {"", 1},     {"b", 1},   {"k", kKi},   {"kib", kKi}, {"kb", 1e3}, {"m", kMi},   {"mib", kMi},
    {"mb", 1e6}, {"g", kGi}, {"gib", kGi}, {"gb", 1e9},  {"t", kTi},  {"tib", kTi}, {"tb", 1e12},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

absl::Status Invalid(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(Cat("invalid byte size '", text, "': ", why,
                                        " (expected e.g. 1048576, 64MiB, 1.5GiB, 512k, 100MB)"));
}

}  // namespace

absl::StatusOr<int64_t> ParseByteSize(std::string_view text) {
  const std::string_view s = Trim(text);
  size_t i = 0;
  bool seen_digit = false, seen_dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      seen_digit = true;
    } else if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return Invalid(text, "no number");
  const std::string_view unit = Trim(s.substr(i));
  const Unit* found = nullptr;
  for (const Unit& u : kUnits) {
    if (IEquals(unit, u.name)) found = &u;
  }
  if (found == nullptr) return Invalid(text, Cat("unknown unit '", unit, "'"));

  // Integers without a unit parse exactly (doubles lose precision above 2^53).
  if (!seen_dot && found->factor == 1) {
    int64_t v = 0;
    for (size_t k = 0; k < i; ++k) {
      const int d = s[k] - '0';
      if (v > (INT64_MAX - d) / 10) return Invalid(text, "too large");
      v = v * 10 + d;
    }
    return v;
  }
  const std::string number(s.substr(0, i));
  const double bytes = std::strtod(number.c_str(), nullptr) * found->factor;
  // 2^63 is exactly representable; anything at or above it overflows int64.
  if (!(bytes < 9223372036854775808.0)) return Invalid(text, "too large");
  return static_cast<int64_t>(bytes);
}

std::string FormatByteSize(int64_t bytes) {
  static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (std::fabs(v) >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) return Cat(bytes, " B");
  if (v == std::floor(v)) return Cat(static_cast<int64_t>(v), " ", kNames[u]);
  return fmt::format("{:.2f} {}", v, kNames[u]);
}

}  // namespace eagervm::base
