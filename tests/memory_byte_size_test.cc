#include <gtest/gtest.h>

#include "base/byte_size.h"

namespace eagervm::base {
namespace {

int64_t P(std::string_view s) {
  absl::StatusOr<int64_t> v = ParseByteSize(s);
  EXPECT_TRUE(v.ok()) << s << ": " << v.status();
  return v.value_or(-1);
}

TEST(ParseByteSize, UnitsAndSpelling) {
  EXPECT_EQ(P("0"), 0);
  EXPECT_EQ(P("1048576"), 1048576);
  EXPECT_EQ(P("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(P("512B"), 512);
  EXPECT_EQ(P("64MiB"), 64ll << 20);
  EXPECT_EQ(P("64mib"), 64ll << 20);
  EXPECT_EQ(P(" 64 MiB "), 64ll << 20);
  EXPECT_EQ(P("512k"), 512ll << 10);
  EXPECT_EQ(P("2G"), 2ll << 30);
  EXPECT_EQ(P("1.5GiB"), 3ll << 29);
  EXPECT_EQ(P("1TiB"), 1ll << 40);
  EXPECT_EQ(P("100MB"), 100000000);
  EXPECT_EQ(P("2kb"), 2000);
  EXPECT_EQ(P("0.5KiB"), 512);
}

TEST(ParseByteSize, RejectsWithTheText) {
  for (const char* bad : {"", " ", "MiB", "-1", "12XB", "1.2.3", "64 MiB extra",
                          "9223372036854775808", "9000000TiB", "0x10"}) {
    absl::StatusOr<int64_t> v = ParseByteSize(bad);
    EXPECT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(std::string(v.status().message()).find(std::string("'") + bad + "'"),
              std::string::npos)
        << v.status();
  }
}

TEST(FormatByteSize, Readable) {
  EXPECT_EQ(FormatByteSize(512), "512 B");
  EXPECT_EQ(FormatByteSize(64ll << 20), "64 MiB");
  EXPECT_EQ(FormatByteSize(3ll << 29), "1.50 GiB");
}

}  // namespace
}  // namespace eagervm::base
