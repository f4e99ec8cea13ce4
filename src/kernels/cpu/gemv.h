// The matrix-vector case of a float or double matmul: when op(b) is one
// column (n == 1) or op(a) one row (m == 1), BLAS's gemv reads the matrix
// once, where gemm would first pack (copy) it into its blocked layout on
// every call; for a [4096, 8] @ [8, 1] that packing is most of the time.
#ifndef EAGERVM_KERNELS_CPU_GEMV_H_
#define EAGERVM_KERNELS_CPU_GEMV_H_

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace eagervm::kernels {

// c = op(a) @ op(b), a stored row-major [a0, a1], b [b0, b1], op a transpose
// where ta / tb say so; m, n, k >= 1. Returns false, doing nothing, unless
// T is float or double and m == 1 or n == 1.
template <typename T>
bool GemvIfVector(const T* a, const T* b, T* c, bool ta, bool tb, int64_t a0, int64_t a1,
                  int64_t b0, int64_t b1) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const int64_t m = ta ? a1 : a0, n = tb ? b0 : b1;
    auto gemv = [](CBLAS_TRANSPOSE t, int64_t rows, int64_t cols, const T* mat, const T* x, T* y) {
      const int ld = static_cast<int>(std::max<int64_t>(cols, 1));
      if constexpr (std::is_same_v<T, float>) {
        cblas_sgemv(CblasRowMajor, t, static_cast<int>(rows), static_cast<int>(cols), 1.0f, mat, ld,
                    x, 1, 0.0f, y, 1);
      } else {
        cblas_dgemv(CblasRowMajor, t, static_cast<int>(rows), static_cast<int>(cols), 1.0, mat, ld,
                    x, 1, 0.0, y, 1);
      }
    };
    if (n == 1) {  // c[m] = op(a) @ the k-vector b (stored contiguously either way)
      gemv(ta ? CblasTrans : CblasNoTrans, a0, a1, a, b, c);
      return true;
    }
    if (m == 1) {  // c[n] = op(b)^T @ the k-vector a
      gemv(tb ? CblasNoTrans : CblasTrans, b0, b1, b, a, c);
      return true;
    }
  }
  return false;
}

}  // namespace eagervm::kernels

#endif  // EAGERVM_KERNELS_CPU_GEMV_H_
