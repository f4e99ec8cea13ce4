// MatMulTransposed: op(a) @ op(b) with op a transpose where scalar(0) /
// scalar(1) say so. Floats pass CblasTrans to BLAS, reading the operands in
// place; integers use an exact (wrapping) loop that indexes the transposes.
#include <cblas.h>

#include <algorithm>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"

namespace eagervm::kernels {
namespace {

template <typename T>
struct MatMulTransposed {
  static absl::Status Run(KernelContext& ctx) {
    const bool ta = ctx.scalar(0).to<bool>(), tb = ctx.scalar(1).to<bool>();
    const Shape& as = ctx.input_meta(0).shape;
    const Shape& bs = ctx.input_meta(1).shape;
    const int64_t m = ta ? as[1] : as[0], k = ta ? as[0] : as[1];
    const int64_t n = tb ? bs[0] : bs[1];
    T* c = ctx.output<T>(0);
    if (m == 0 || n == 0) return absl::OkStatus();
    if (k == 0) {
      std::fill(c, c + m * n, T{0});
      return absl::OkStatus();
    }
    const T* a = ctx.input<T>(0);
    const T* b = ctx.input<T>(1);
    // Row-major leading dimensions of the stored matrices (>= 1 for BLAS).
    const int lda = static_cast<int>(std::max<int64_t>(as[1], 1));
    const int ldb = static_cast<int>(std::max<int64_t>(bs[1], 1));
    const int ldc = static_cast<int>(std::max<int64_t>(n, 1));
    const CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans;
    const CBLAS_TRANSPOSE opb = tb ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, opa, opb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemm(CblasRowMajor, opa, opb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
    } else {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          T acc{0};
          for (int64_t p = 0; p < k; ++p) {
            const T x = ta ? a[p * as[1] + i] : a[i * as[1] + p];
            const T y = tb ? b[j * bs[1] + p] : b[p * bs[1] + j];
            acc = WrapAdd(acc, WrapMul(x, y));
          }
          c[i * n + j] = acc;
        }
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterMatMulTransposedCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<MatMulTransposed>(r, "MatMulTransposed", kNumericTypes);
}

}  // namespace eagervm::kernels
