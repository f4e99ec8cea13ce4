// Shared pieces of the CUDA tests. They compile in every build; without a
// GPU (CudaDeviceCount() == 0, e.g. CI) each test skips with the reason.
#ifndef EAGERVM_TESTS_CUDA_TEST_UTIL_H_
#define EAGERVM_TESTS_CUDA_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include "eagervm/eagervm.h"

#define EAGERVM_REQUIRE_CUDA()                                                             \
  do {                                                                                     \
    if (::eagervm::CudaDeviceCount() == 0)                                                 \
      GTEST_SKIP() << "needs a CUDA GPU: CudaDeviceCount() is 0 (no driver or device, or " \
                      "built without CUDA); run scripts/gpu_check.sh on a GPU machine";    \
  } while (0)

namespace eagervm::testing_cuda {

inline const Device kGpu = Device::Cuda(0);

template <typename T>
std::vector<T> RandomValues(size_t n, std::mt19937_64& rng, double lo = -4, double hi = 4) {
  std::vector<T> v(n);
  std::uniform_real_distribution<double> d(lo, hi);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>)
      v[i] = d(rng) > 0;
    else if constexpr (std::is_integral_v<T>)
      v[i] = static_cast<T>(std::llround(d(rng)));
    else
      v[i] = static_cast<T>(d(rng));
  }
  return v;
}

template <typename T>
Tensor Host(const std::vector<T>& v, Shape shape) {
  if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
    std::unique_ptr<bool[]> b(new bool[v.size() + 1]);
    for (size_t i = 0; i < v.size(); ++i) b[i] = v[i];
    return FromVector<bool>(absl::Span<const bool>(b.get(), v.size()), shape);  // copies
  } else {
    return FromVector<T>(absl::MakeConstSpan(v), shape);
  }
}

// Both tensors' values, compared elementwise: exact for integers and bool,
// within `rtol` (relative, with an absolute floor) for floats; NaN == NaN.
template <typename T>
void ExpectSameValues(const Tensor& expected, const Tensor& actual, double rtol = 1e-5) {
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(expected.shape(), actual.shape());
  ASSERT_EQ(expected.dtype(), actual.dtype());
  absl::StatusOr<std::vector<T>> e = expected.ToVector<T>();
  absl::StatusOr<std::vector<T>> a = actual.ToVector<T>();
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(e->size(), a->size());
  for (size_t i = 0; i < e->size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      const double x = (*e)[i], y = (*a)[i];
      if (std::isnan(x) || std::isnan(y)) {
        ASSERT_TRUE(std::isnan(x) && std::isnan(y)) << "at " << i << ": " << x << " vs " << y;
      } else {
        ASSERT_NEAR(x, y, rtol * std::max(1.0, std::fabs(x))) << "at " << i;
      }
    } else {
      ASSERT_EQ((*e)[i], (*a)[i]) << "at " << i;
    }
  }
}

}  // namespace eagervm::testing_cuda

#endif  // EAGERVM_TESTS_CUDA_TEST_UTIL_H_
