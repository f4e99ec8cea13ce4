// MatMulTransposed and BatchMatMul: op(a) @ op(b) with op a transpose where
// scalar(0) / scalar(1) say so. Floats pass CblasTrans to BLAS, reading the operands in
// place (float32 with a side of at most 12: skinny_gemm.h); integers use an exact (wrapping) loop
// that indexes the transposes.
#include <cblas.h>

#include <algorithm>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/skinny_gemm.h"

namespace eagervm::kernels {
namespace {

// c[m,n] = op(a) @ op(b) for one matrix pair; as[0..1], bs[0..1] are the
// stored (row-major) extents of a and b.
template <typename T>
void GemmT(const T* a, const T* b, T* c, bool ta, bool tb, int64_t a0, int64_t a1, int64_t b0,
           int64_t b1) {
  const int64_t m = ta ? a1 : a0, k = ta ? a0 : a1;
  const int64_t n = tb ? b0 : b1;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, T{0});
    return;
  }
  if (GemvIfVector(a, b, c, ta, tb, a0, a1, b0, b1)) return;
  if constexpr (std::is_same_v<T, float>) {
    if (skinny_gemm::Run(a, b, c, ta, tb, a0, a1, b0, b1)) return;
  }
  // Row-major leading dimensions of the stored matrices (>= 1 for BLAS).
  const int lda = static_cast<int>(std::max<int64_t>(a1, 1));
  const int ldb = static_cast<int>(std::max<int64_t>(b1, 1));
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
          const T x = ta ? a[p * a1 + i] : a[i * a1 + p];
          const T y = tb ? b[j * b1 + p] : b[p * b1 + j];
          acc = WrapAdd(acc, WrapMul(x, y));
        }
        c[i * n + j] = acc;
      }
    }
  }
}

// 2-D (MatMulTransposed) or 3-D (BatchMatMul: one GEMM per batch entry, the
// matrices read in place at their batch stride).
template <typename T>
struct MatMulTransposed {
  static absl::Status Run(KernelContext& ctx) {
    const bool ta = ctx.scalar(0).to<bool>(), tb = ctx.scalar(1).to<bool>();
    const Shape& as = ctx.input_meta(0).shape;
    const Shape& bs = ctx.input_meta(1).shape;
    const int r = as.rank();
    const int64_t batch = r == 3 ? as[0] : 1;
    const int64_t a0 = as[r - 2], a1 = as[r - 1], b0 = bs[r - 2], b1 = bs[r - 1];
    const Shape& cs = ctx.output_meta(0).shape;
    const int64_t c_size = cs[r - 2] * cs[r - 1];
    const T* a = ctx.input<T>(0);
    const T* b = ctx.input<T>(1);
    T* c = ctx.output<T>(0);
    for (int64_t i = 0; i < batch; ++i) {
      GemmT<T>(a + i * a0 * a1, b + i * b0 * b1, c + i * c_size, ta, tb, a0, a1, b0, b1);
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterMatMulTransposedCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<MatMulTransposed>(r, builtin::kMatMulTransposed, kNumericDTypes);
  RegisterCpu<MatMulTransposed>(r, builtin::kBatchMatMul, kNumericDTypes);
}

}  // namespace eagervm::kernels
