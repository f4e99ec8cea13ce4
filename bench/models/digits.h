// The digits data set (1797 8x8 grey images of the digits 0-9, pixel values
// 0..16), as scikit-learn ships it: a gzip-compressed CSV of 65 integer
// columns per row, 64 pixels then the label. Debian's python3-sklearn
// installs it (scripts/install_peers.sh).
#ifndef EAGERVM_BENCH_MODELS_DIGITS_H_
#define EAGERVM_BENCH_MODELS_DIGITS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace eagervm::models {

struct Digits {
  static constexpr int kPixels = 64;
  static constexpr int kClasses = 10;
  std::vector<float> images;    // [n, 64], pixel / 16
  std::vector<int64_t> labels;  // [n], 0..9
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

// Where Debian's python3-sklearn puts digits.csv.gz.
inline constexpr char kDigitsPath[] =
    "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";

// Reads and checks the file: NotFound if it is missing, InvalidArgument
// naming the line when a row is not 65 integers with pixels in 0..16 and a
// label in 0..9. Any thread; blocks on the file.
absl::StatusOr<Digits> LoadDigits(const std::string& path = kDigitsPath);

}  // namespace eagervm::models

#endif  // EAGERVM_BENCH_MODELS_DIGITS_H_
