#include <cmath>
#include <random>

#include "models/mlp.h"

namespace eagervm::models {
namespace {

std::vector<float> Uniform(std::mt19937_64& g, int64_t n, float bound) {
  std::vector<float> v(static_cast<size_t>(n));
  // Not std::uniform_real_distribution: its output is not specified
  // bit-for-bit across standard libraries.
  for (float& x : v) x = bound * (static_cast<float>(g() >> 40) / float(1 << 24) * 2.0f - 1.0f);
  return v;
}

}  // namespace

MlpParams InitialParams(const MlpConfig& c) {
  std::mt19937_64 g(c.seed);
  MlpParams p;
  const float b1 = 1.0f / std::sqrt(float(Digits::kPixels));
  const float b2 = 1.0f / std::sqrt(float(c.hidden));
  p.w1 = Uniform(g, Digits::kPixels * c.hidden, b1);
  p.b1 = Uniform(g, c.hidden, b1);
  p.w2 = Uniform(g, c.hidden * Digits::kClasses, b2);
  p.b2 = Uniform(g, Digits::kClasses, b2);
  return p;
}

}  // namespace eagervm::models
