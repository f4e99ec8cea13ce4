#include "kernels/cpu/skinny_gemm.h"

#include <cstdint>
#include <utility>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EAGERVM_SKINNY_GEMM 1
#define EAGERVM_AVX512F __attribute__((target("avx512f")))
#endif

namespace eagervm::kernels::skinny_gemm {

#if defined(EAGERVM_SKINNY_GEMM)
namespace {

// The widest narrow side the kernels take: up to 12, two rows (or column
// blocks) of accumulators fit the 32 vector registers; wider ones measured
// slower than BLAS.
constexpr int kMaxNarrow = 12;

// A packed copy of b per thread, reused from call to call. At most
// kMaxPackFloats (1 MiB), so that no thread keeps a copy of a large operand
// outside the allocator: a product that would need more goes to BLAS.
constexpr int64_t kMaxPackFloats = int64_t{1} << 18;
std::vector<float>& PackBuffer(int64_t size) {
  thread_local std::vector<float> buf;
  if (static_cast<int64_t>(buf.size()) < size) buf.resize(static_cast<size_t>(size));
  return buf;
}

// out[r][c] = in[c][r] for an in of `rows` x `cols`, row stride ld_in.
void TransposeInto(const float* in, int64_t rows, int64_t cols, int64_t ld_in, float* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * ld_in + c];
}

// The columns of RowsSmallK's panels.
constexpr int kPanel = 32;

// op(b) [k, n] (at b[p * bp + j * bj]) as panels of kPanel columns, each its
// k rows one after another, the last panel padded with zeros; 64-byte aligned.
const float* PackPanels(const float* b, int64_t bp, int64_t bj, int64_t k, int64_t n) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  std::vector<float>& buf = PackBuffer(panels * k * kPanel + 16);
  float* out = buf.data();
  out += (16 - (reinterpret_cast<uintptr_t>(out) / sizeof(float)) % 16) % 16;
  for (int64_t t = 0; t < panels; ++t)
    for (int64_t p = 0; p < k; ++p) {
      float* row = out + (t * k + p) * kPanel;
      for (int64_t j = 0; j < kPanel; ++j) {
        const int64_t col = t * kPanel + j;
        row[j] = col < n ? b[p * bp + col * bj] : 0.0f;
      }
    }
  return out;
}

EAGERVM_AVX512F inline __mmask16 MaskOf(int64_t lanes) {
  return lanes >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << lanes) - 1);
}

// The 16 sums of v[0..15] as one vector: lane j holds the sum of v[j]'s
// lanes, added in a tree (the same order for every j and every call). Vector
// extensions, not intrinsics: GCC's shuffle intrinsics warn of an undefined
// pass-through operand.
EAGERVM_AVX512F inline __m512 Reduce16(const __m512* v) {
  __m512 s[8], t[4];
#pragma GCC unroll 8
  for (int p = 0; p < 8; ++p) {  // 256-bit halves of two vectors added
    const __m512 a = v[2 * p], b = v[2 * p + 1];
    s[p] =
        __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
        __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  }
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {  // 128-bit lane r of t[q]: 4 partial sums of v[4q + r]
    const __m512 a = s[2 * q], b = s[2 * q + 1];
    t[q] =
        __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
        __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
  }
  const __m512 u = __builtin_shufflevector(t[0], t[1], 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12,
                                           28, 13, 29) +
                   __builtin_shufflevector(t[0], t[1], 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27,
                                           14, 30, 15, 31);
  const __m512 w = __builtin_shufflevector(t[2], t[3], 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12,
                                           28, 13, 29) +
                   __builtin_shufflevector(t[2], t[3], 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27,
                                           14, 30, 15, 31);
  const __m512 z =
      __builtin_shufflevector(u, w, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29) +
      __builtin_shufflevector(u, w, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
  // Lane 4r + q of z holds the sum of v[4q + r]: back to lane order.
  return __builtin_shufflevector(z, z, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
}

// n = N <= 12, op(a) rows contiguous: c[i, j] = dot(a row i, bt row j) over
// k, R rows of a at a time (each vector of b loaded once for R rows).
template <int N, int R>
EAGERVM_AVX512F void DotRows(const float* a, int64_t lda, const float* bt, int64_t ldb, float* c,
                             int64_t m, int64_t k) {
  const __mmask16 tail = MaskOf(k % 16), out_mask = MaskOf(N);
  int64_t i = 0;
  for (; i + R <= m; i += R) {
    __m512 acc[R][N];
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j)
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r) acc[r][j] = _mm512_setzero_ps();
    const float* ai = a + i * lda;
    for (int64_t p = 0; p < k; p += 16) {
      const __mmask16 mk = p + 16 <= k ? static_cast<__mmask16>(0xFFFF) : tail;
      __m512 x[R];
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r) x[r] = _mm512_maskz_loadu_ps(mk, ai + r * lda + p);
#pragma GCC unroll 16
      for (int j = 0; j < N; ++j) {
        const __m512 y = _mm512_maskz_loadu_ps(mk, bt + j * ldb + p);
#pragma GCC unroll 2
        for (int r = 0; r < R; ++r) acc[r][j] = _mm512_fmadd_ps(x[r], y, acc[r][j]);
      }
    }
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r) {
      __m512 v[16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) v[j] = j < N ? acc[r][j] : _mm512_setzero_ps();
      _mm512_mask_storeu_ps(c + (i + r) * N, out_mask, Reduce16(v));
    }
  }
  if constexpr (R > 1)
    if (i < m) DotRows<N, 1>(a + i * lda, lda, bt, ldb, c + i * N, m - i, k);
}

// n = N <= 12, op(a) = a^T (a stored [k, m]): c's rows 16 * MB at a time,
// c[i, j] = sum over p of a[p, i] * op(b)[p, j]; op(b)[p, j] is at
// b[p * bp + j * bj].
template <int N, int MB>
EAGERVM_AVX512F void ColsOfAT(const float* a, int64_t lda, const float* b, int64_t bp, int64_t bj,
                              float* c, int64_t m, int64_t k) {
  for (int64_t i = 0; i < m; i += 16 * MB) {
    const int64_t rows = m - i < 16 * MB ? m - i : 16 * MB;
    __mmask16 mask[MB];
#pragma GCC unroll 2
    for (int q = 0; q < MB; ++q) mask[q] = MaskOf(rows - 16 * q < 0 ? 0 : rows - 16 * q);
    const bool full = rows == 16 * MB;  // plain loads: masked ones are slower on AMD
    __m512 acc[N][MB];
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j)
#pragma GCC unroll 2
      for (int q = 0; q < MB; ++q) acc[j][q] = _mm512_setzero_ps();
    for (int64_t p = 0; p < k; ++p) {
      __m512 x[MB];
#pragma GCC unroll 2
      for (int q = 0; q < MB; ++q)
        x[q] = full ? _mm512_loadu_ps(a + p * lda + i + 16 * q)
                    : _mm512_maskz_loadu_ps(mask[q], a + p * lda + i + 16 * q);
      const float* brow = b + p * bp;
#pragma GCC unroll 16
      for (int j = 0; j < N; ++j) {
        const __m512 y = _mm512_set1_ps(brow[j * bj]);
#pragma GCC unroll 2
        for (int q = 0; q < MB; ++q) acc[j][q] = _mm512_fmadd_ps(x[q], y, acc[j][q]);
      }
    }
    alignas(64) float t[N][16 * MB];
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j)
#pragma GCC unroll 2
      for (int q = 0; q < MB; ++q) _mm512_store_ps(&t[j][16 * q], acc[j][q]);
    for (int64_t r = 0; r < rows; ++r)
      for (int j = 0; j < N; ++j) c[(i + r) * N + j] = t[j][r];
  }
}

// k = K <= 12: c's rows R at a time, one panel of 16 * Q columns at a time
// (R * Q independent sums in flight: one sum is a chain of K dependent
// multiply-adds): c[i, :] = sum over p of op(a)[i, p] * op(b) row p, with
// op(a)[i, p] at a[i * ai + p * ap] and op(b) packed by PackPanels.
template <int K, int R, int Q>
EAGERVM_AVX512F void RowsSmallK(const float* a, int64_t ai, int64_t ap, const float* panels,
                                float* c, int64_t m, int64_t n) {
  constexpr int kW = 16 * Q;
  int64_t i = 0;
  for (; i + R <= m; i += R) {
    __m512 s[R][K];
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
      for (int p = 0; p < K; ++p) s[r][p] = _mm512_set1_ps(a[(i + r) * ai + p * ap]);
    const float* panel = panels;
    for (int64_t q0 = 0; q0 < n; q0 += kW, panel += K * kW) {
      __m512 acc[R][Q];
#pragma GCC unroll 4
      for (int q = 0; q < Q; ++q) {
        const __m512 y = _mm512_load_ps(panel + 16 * q);
#pragma GCC unroll 2
        for (int r = 0; r < R; ++r) acc[r][q] = _mm512_mul_ps(s[r][0], y);
      }
#pragma GCC unroll 16
      for (int p = 1; p < K; ++p) {
#pragma GCC unroll 4
        for (int q = 0; q < Q; ++q) {
          const __m512 y = _mm512_load_ps(panel + p * kW + 16 * q);
#pragma GCC unroll 2
          for (int r = 0; r < R; ++r) acc[r][q] = _mm512_fmadd_ps(s[r][p], y, acc[r][q]);
        }
      }
#pragma GCC unroll 4
      for (int q = 0; q < Q; ++q) {
        const int64_t left = n - q0 - 16 * q;
        // A masked store only where needed: a full one is cheaper on AMD.
        if (left >= 16) {
#pragma GCC unroll 2
          for (int r = 0; r < R; ++r) _mm512_storeu_ps(c + (i + r) * n + q0 + 16 * q, acc[r][q]);
        } else if (left > 0) {
#pragma GCC unroll 2
          for (int r = 0; r < R; ++r)
            _mm512_mask_storeu_ps(c + (i + r) * n + q0 + 16 * q, MaskOf(left), acc[r][q]);
        }
      }
    }
  }
  if constexpr (R > 1)
    if (i < m) RowsSmallK<K, 1, Q>(a + i * ai, ai, ap, panels, c + i * n, m - i, n);
}

// Kernels indexed by the narrow extent (1..kMaxNarrow), two rows / two
// column blocks at a time.
constexpr int kPair = 2;

using DotRowsFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t);
using ColsOfATFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, float*, int64_t,
                            int64_t);
using RowsSmallKFn = void (*)(const float*, int64_t, int64_t, const float*, float*, int64_t,
                              int64_t);

template <int... W>
constexpr DotRowsFn DotRowsTable(int w, std::integer_sequence<int, W...>) {
  constexpr DotRowsFn t[] = {&DotRows<W + 1, kPair>...};
  return t[w - 1];
}
template <int... W>
constexpr ColsOfATFn ColsOfATTable(int w, std::integer_sequence<int, W...>) {
  constexpr ColsOfATFn t[] = {&ColsOfAT<W + 1, kPair>...};
  return t[w - 1];
}
template <int... W>
constexpr RowsSmallKFn RowsSmallKTable(int w, std::integer_sequence<int, W...>) {
  constexpr RowsSmallKFn t[] = {&RowsSmallK<W + 1, kPair, kPanel / 16>...};
  return t[w - 1];
}
using Widths = std::make_integer_sequence<int, kMaxNarrow>;

}  // namespace

bool Supported() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512;
}

bool Pays(int64_t m, int64_t n, int64_t k) {
  // Measured against OpenBLAS 0.3.21 (docs/performance.md, "Skinny
  // products"): faster from these sizes on, slower below them.
  if (!Supported() || m < 16) return false;
  if (n <= kMaxNarrow && k >= 32) return true;
  return k <= kMaxNarrow && n >= 64;
}

bool Run(const float* a, const float* b, float* c, bool ta, bool tb, int64_t a0, int64_t a1,
         int64_t b0, int64_t b1) {
  const int64_t m = ta ? a1 : a0, k = ta ? a0 : a1, n = tb ? b0 : b1;
  if (!Pays(m, n, k)) return false;
  const bool narrow_n = n <= kMaxNarrow && k >= 32;
  // Only op(b) of a product with a narrow k, or a contiguous [k, n] b of one
  // with a narrow n, is packed: beyond the cap, BLAS.
  const bool packs = narrow_n ? !ta && !tb : true;
  const int64_t pack = narrow_n ? n * k : (n + kPanel - 1) / kPanel * kPanel * k + 16;
  if (packs && pack > kMaxPackFloats) return false;
  if (narrow_n) {
    const int w = static_cast<int>(n);
    if (ta) {  // op(b)[p, j]: b[p * b1 + j], or b[j * b1 + p] where tb
      ColsOfATTable(w, Widths{})(a, a1, b, tb ? 1 : b1, tb ? b1 : 1, c, m, k);
      return true;
    }
    const float* bt = b;  // op(b)^T: rows of k contiguous floats
    int64_t ldb = b1;
    if (!tb) {
      std::vector<float>& buf = PackBuffer(n * k);
      TransposeInto(b, k, n, b1, buf.data());
      bt = buf.data();
      ldb = k;
    }
    DotRowsTable(w, Widths{})(a, a1, bt, ldb, c, m, k);
    return true;
  }
  // op(a)[i, p]: a[i * a1 + p], or a[p * a1 + i] where ta; op(b)[p, j]:
  // b[p * b1 + j], or b[j * b1 + p] where tb
  const float* panels = PackPanels(b, tb ? 1 : b1, tb ? b1 : 1, k, n);
  RowsSmallKTable(static_cast<int>(k), Widths{})(a, ta ? 1 : a1, ta ? a1 : 1, panels, c, m, n);
  return true;
}

#else  // no AVX-512F kernels in this build

bool Supported() { return false; }
bool Pays(int64_t, int64_t, int64_t) { return false; }
bool Run(const float*, const float*, float*, bool, bool, int64_t, int64_t, int64_t, int64_t) {
  return false;
}

#endif

}  // namespace eagervm::kernels::skinny_gemm
