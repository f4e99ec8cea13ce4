// Helpers for the op tests: random data and shapes, a host reference for
// broadcasting, and comparisons with a tolerance that depends on the dtype.
#ifndef EAGERVM_TESTS_OPS_TEST_UTIL_H_
#define EAGERVM_TESTS_OPS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm::testing {

using Rng = std::mt19937_64;

// Small integers keep integer products exact; floats in [-3, 3].
template <typename T>
std::vector<T> RandomData(Rng& rng, int64_t n, bool nonzero = false) {
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(std::uniform_real_distribution<double>(-3, 3)(rng));
      if (nonzero && std::fabs(x) < 0.1) x = 0.5;
    } else {
      x = static_cast<T>(std::uniform_int_distribution<int>(-50, 50)(rng));
      if (nonzero && x == 0) x = 7;
    }
  }
  return v;
}

inline Shape RandomShape(Rng& rng, int max_rank = 4, int64_t max_dim = 5) {
  const int rank = std::uniform_int_distribution<int>(0, max_rank)(rng);
  Shape s;
  for (int i = 0; i < rank; ++i)
    s.push_back(std::uniform_int_distribution<int64_t>(1, max_dim)(rng));
  return s;
}

// Two shapes that broadcast to `out`: leading dims dropped, some dims set to 1.
inline std::pair<Shape, Shape> BroadcastPair(Rng& rng, const Shape& out) {
  auto derive = [&](void) {
    const int drop = std::uniform_int_distribution<int>(0, out.rank())(rng);
    Shape s;
    for (int d = drop; d < out.rank(); ++d) {
      s.push_back(std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 1 : out[d]);
    }
    return s;
  };
  return {derive(), derive()};
}

// Row-major index of output element `i` (of shape `out`) in an input of shape
// `in` that broadcasts to `out`.
inline int64_t BroadcastIndex(int64_t i, const Shape& out, const Shape& in) {
  int64_t idx = 0, stride = 1;
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int64_t coord = i % out[d];
    i /= out[d];
    const int di = d - (out.rank() - in.rank());
    if (di >= 0) {
      if (in[di] != 1) idx += coord * stride;
      stride *= in[di];
    }
  }
  return idx;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  absl::StatusOr<std::vector<T>> v = t.ToVector<T>();
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *std::move(v) : std::vector<T>();
}

template <typename T>
Tensor Make(const std::vector<T>& data, const Shape& shape) {
  Tensor t = FromVector<T>(data, shape);
  EXPECT_TRUE(t.ok()) << t.status();
  return t;
}

// Exact for integers; relative (with an absolute floor) for floats. NaNs match NaNs.
template <typename T>
void ExpectNear(const std::vector<T>& got, const std::vector<T>& want, const std::string& what,
                double rel = std::is_same_v<T, float> ? 1e-5 : 1e-12) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
        continue;
      }
      const double tol = rel * std::max(1.0, std::fabs(static_cast<double>(want[i])));
      ASSERT_NEAR(got[i], want[i], tol) << what << " at " << i;
    } else {
      ASSERT_EQ(got[i], want[i]) << what << " at " << i;
    }
  }
}

// The VM received nothing between construction and Count(): the op queued nothing.
class QueueProbe {
 public:
  QueueProbe() : before_(VirtualMachine::Get().GetStats().received) {}
  uint64_t Count() const { return VirtualMachine::Get().GetStats().received - before_; }

 private:
  uint64_t before_;
};

using NumericTypes = ::testing::Types<int32_t, int64_t, float, double>;
using FloatTypes = ::testing::Types<float, double>;

}  // namespace eagervm::testing

#endif  // EAGERVM_TESTS_OPS_TEST_UTIL_H_
