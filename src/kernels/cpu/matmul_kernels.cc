// MatMul ([m,k] @ [k,n]) and materialised 2-D Transpose. Floating point goes
// through OpenBLAS, single-threaded: each VM stream already owns a worker
// thread, and on a 2-core machine BLAS threads on top would oversubscribe it
// (float32 products with a side of at most 12: skinny_gemm.h).
// Integers use a plain i-k-j loop (wrapping arithmetic): exact, and fast
// enough for the small integer products people actually compute.
#include <cblas.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/skinny_gemm.h"

// Weak so that eagervm still links against a BLAS without this OpenBLAS
// extension; it is then simply not called.
extern "C" void openblas_set_num_threads(int num_threads) __attribute__((weak));

namespace eagervm::kernels {
namespace {

struct Dims {
  int64_t m, k, n;
};

Dims DimsOf(const KernelContext& ctx) {
  return {ctx.input_meta(0).shape[0], ctx.input_meta(0).shape[1], ctx.input_meta(1).shape[1]};
}

template <typename T>
void Gemm(const T* a, const T* b, T* c, Dims d) {
  if (GemvIfVector(a, b, c, false, false, d.m, d.k, d.k, d.n)) return;
  if constexpr (std::is_same_v<T, float>) {
    if (skinny_gemm::Run(a, b, c, false, false, d.m, d.k, d.k, d.n)) return;
  }
  // BLAS needs leading dimensions >= 1 even for empty matrices.
  const int lda = static_cast<int>(std::max<int64_t>(d.k, 1));
  const int ldb = static_cast<int>(std::max<int64_t>(d.n, 1));
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d.m, d.n, d.k, 1.0f, a, lda, b, ldb,
                0.0f, c, ldb);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d.m, d.n, d.k, 1.0, a, lda, b, ldb, 0.0,
                c, ldb);
  } else {
    for (int64_t i = 0; i < d.m; ++i) {
      T* row = c + i * d.n;
      std::fill(row, row + d.n, T{0});
      for (int64_t p = 0; p < d.k; ++p) {
        const T x = a[i * d.k + p];
        const T* brow = b + p * d.n;
        for (int64_t j = 0; j < d.n; ++j) row[j] = WrapAdd(row[j], WrapMul(x, brow[j]));
      }
    }
  }
}

template <typename T>
struct MatMul {
  static absl::Status Run(KernelContext& ctx) {
    const Dims d = DimsOf(ctx);
    T* c = ctx.output<T>(0);
    if (d.m == 0 || d.n == 0) return absl::OkStatus();
    if (d.k == 0) {  // an empty sum: zeros (not every BLAS handles k == 0)
      std::fill(c, c + d.m * d.n, T{0});
      return absl::OkStatus();
    }
    Gemm<T>(ctx.input<T>(0), ctx.input<T>(1), c, d);
    return absl::OkStatus();
  }
};

// Blocked so that both the reads and the writes stay within a few cache lines
// per tile instead of striding through a whole column.
template <typename T>
struct Transpose {
  static absl::Status Run(KernelContext& ctx) {
    const int64_t rows = ctx.input_meta(0).shape[0], cols = ctx.input_meta(0).shape[1];
    const T* x = ctx.input<T>(0);
    T* out = ctx.output<T>(0);
    constexpr int64_t kTile = 32;
    for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile);
      for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
        const int64_t j1 = std::min(cols, j0 + kTile);
        for (int64_t i = i0; i < i1; ++i) {
          for (int64_t j = j0; j < j1; ++j) out[j * rows + i] = x[i * cols + j];
        }
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterMatMulCpuKernels(internal::OpRegistry& r) {
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  RegisterCpu<MatMul>(r, builtin::kMatMul, kNumericDTypes);
  RegisterCpu<Transpose>(r, builtin::kTranspose, kAllDTypes);
  RegisterCpuTyped<Transpose, uint8_t, Half, BFloat16>(r, builtin::kTranspose);
}

}  // namespace eagervm::kernels
