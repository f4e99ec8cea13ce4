// The CUDA kernels of the comparisons, Minimum, Where, Abs, Pow, Softmax and
// LogSoftmax against the CPU kernels on the same inputs (broadcasting, large
// logits, NaN). Needs a GPU; skips otherwise.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "cuda_test_util.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using testing_cuda::ExpectSameValues;
using testing_cuda::Host;
using testing_cuda::kGpu;
using testing_cuda::RandomValues;

class CudaModelOps : public ::testing::Test {
 protected:
  void SetUp() override { EAGERVM_REQUIRE_CUDA(); }
  std::mt19937_64 rng_{77};
};

template <typename T, typename F>
void Same(F f, const std::vector<Tensor>& cpu, double rtol = 1e-6) {
  std::vector<Tensor> gpu;
  for (const Tensor& t : cpu) gpu.push_back(t.To(kGpu));
  Tensor want = f(cpu), got = f(gpu);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got.device(), kGpu);
  ExpectSameValues<T>(want, got.To(Device::Cpu()), rtol);
}

TEST_F(CudaModelOps, ComparisonsMinimumWhereBroadcast) {
  auto a = RandomValues<float>(24, rng_), b = RandomValues<float>(4, rng_);
  a[3] = std::numeric_limits<float>::quiet_NaN();
  b[1] = a[1] = 2;
  Tensor ta = Host(a, {2, 3, 4}), tb = Host(b, {4});
  Same<bool>([](auto& v) { return ops::Eq(v[0], v[1]); }, {ta, tb});
  Same<bool>([](auto& v) { return ops::Ne(v[0], v[1]); }, {ta, tb});
  Same<bool>([](auto& v) { return ops::Lt(v[0], v[1]); }, {ta, tb});
  Same<bool>([](auto& v) { return ops::Le(v[0], v[1]); }, {tb, ta});
  Same<bool>([](auto& v) { return ops::Gt(v[0], v[1]); }, {ta, tb});
  Same<bool>([](auto& v) { return ops::Ge(v[0], v[1]); }, {ta, tb});
  Same<float>([](auto& v) { return ops::Minimum(v[0], v[1]); }, {ta, tb});
  Tensor cond = Host(RandomValues<bool>(3, rng_), {3, 1});
  Same<float>([](auto& v) { return ops::Where(v[0], v[1], v[2]); }, {cond, ta, tb});
  auto i = RandomValues<int64_t>(12, rng_, -100, 100);
  Same<int64_t>([](auto& v) { return ops::Abs(v[0]); }, {Host(i, {3, 4})});
  Same<double>([](auto& v) { return ops::Pow(v[0], 3); },
               {Host(RandomValues<double>(9, rng_), {9})});
}

TEST_F(CudaModelOps, SoftmaxAlongEveryAxisWithLargeLogits) {
  auto x = RandomValues<float>(2 * 5 * 7, rng_, 995, 1005);
  Tensor t = Host(x, {2, 5, 7});
  for (int axis = 0; axis < 3; ++axis) {
    Same<float>([axis](auto& v) { return ops::Softmax(v[0], axis); }, {t}, 1e-5);
    Same<float>([axis](auto& v) { return ops::LogSoftmax(v[0], axis); }, {t}, 1e-5);
  }
}

}  // namespace
}  // namespace eagervm
