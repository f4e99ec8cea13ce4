// Softmax, LogSoftmax (the input seen as [outer, n, inner], n along the axis)
// and CrossEntropy over [N, C] logits. Each row subtracts its maximum before
// exp, so no exp overflows; sums accumulate in double. A row holding NaN or
// +inf gives NaN, like the max-subtracting formula in float64. float32 rows
// use the float exp of vec_exp.h (contiguous rows: whole vectors of 4 lanes,
// or 8 / 16 where the CPU has AVX2 / AVX-512F, see softmax_rows.h; rows along a strided axis:
// one lane); float64 uses std::exp.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "base/str_cat.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/cpu/vec_exp.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace eagervm::kernels {
namespace {

struct SoftmaxExtent {
  int64_t outer = 1, n = 1, inner = 1;
};

SoftmaxExtent SoftmaxExtentOf(const Shape& s, int64_t axis) {
  SoftmaxExtent e;
  for (int d = 0; d < s.rank(); ++d) {
    if (d < axis)
      e.outer *= s[d];
    else if (d == axis)
      e.n = s[d];
    else
      e.inner *= s[d];
  }
  return e;
}

// exp(v) in T's precision, as a double.
template <typename T>
double ExpOf(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return vec::Exp(v);
  } else {
    return std::exp(static_cast<double>(v));
  }
}

// The sum of exp(x[k] - max) over a row, as the count of terms that are 1
// (the maximum, and any within float rounding of it) and the sum of the
// rest: log(sum) = log1p(rest) when the maximum is alone, accurate to float
// precision even where the rest is below 1e-7 (LogSoftmax of the largest
// logit).
struct ExpSum {
  double ones = 0, rest = 0;
  double Total() const { return ones + rest; }
  double Log() const { return ones == 1 ? std::log1p(rest) : std::log(ones + rest); }
};

}  // namespace

// Contiguous float32 rows, built three times: 4-lane vectors for the baseline
// instruction set, 8-lane ones in functions built for AVX2 and 16-lane ones
// in functions built for AVX-512F, picked once at run time. All do the same
// float operations in the same order on every element and fold every group
// of 16 exps into the same 4 partial sums, so they give the same bits
// (tests/softmax_rows_test.cc compares them).
namespace softmax_rows {
namespace {

template <typename V>
constexpr int kWidth = static_cast<int>(sizeof(V) / sizeof(float));

// The lanes of *v folded pairwise to 4 lanes by the maximum (kMax) or the
// sum (halves, then quarters): a tree, not a chain of kW - 1 dependent
// steps per row. By pointer and with no helper returning a wide vector: a
// wide vector crosses no call outside code built for its width (vec_exp.h).
template <bool kMax, typename V>
inline vec::F4 FoldTo4(const V* v) {
  if constexpr (kWidth<V> == 16) {
    const vec::F8 a = __builtin_shufflevector(*v, *v, 0, 1, 2, 3, 4, 5, 6, 7);
    const vec::F8 b = __builtin_shufflevector(*v, *v, 8, 9, 10, 11, 12, 13, 14, 15);
    const vec::F8 h = kMax ? (a > b ? a : b) : a + b;
    const vec::F4 c = __builtin_shufflevector(h, h, 0, 1, 2, 3);
    const vec::F4 d = __builtin_shufflevector(h, h, 4, 5, 6, 7);
    return kMax ? (c > d ? c : d) : c + d;
  } else if constexpr (kWidth<V> == 8) {
    const vec::F4 c = __builtin_shufflevector(*v, *v, 0, 1, 2, 3);
    const vec::F4 d = __builtin_shufflevector(*v, *v, 4, 5, 6, 7);
    return kMax ? (c > d ? c : d) : c + d;
  } else {
    return *v;
  }
}

// *v = x[0..len) (0 < len < kWidth<V>), its other lanes `fill`. 16 lanes: one
// masked load (built for AVX-512F, like every caller with 16 lanes); 8: a
// buffer filled lane by lane.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) inline void LoadPadded16(const float* x, int64_t len, float fill,
                                                            void* v) {
  const __m512 r =
      _mm512_mask_loadu_ps(_mm512_set1_ps(fill), static_cast<__mmask16>((1u << len) - 1), x);
  std::memcpy(v, &r, sizeof r);
}
#endif
template <typename V>
inline void LoadPadded(const float* x, int64_t len, float fill, V* v) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (kWidth<V> == 16) {
    LoadPadded16(x, len, fill, v);
    return;
  }
#endif
  alignas(64) float buf[kWidth<V>];
  for (int i = 0; i < kWidth<V>; ++i) buf[i] = i < len ? x[i] : fill;
  std::memcpy(v, buf, sizeof *v);
}

// The maximum of a contiguous float row of n > 0 elements, NaN skipped (a
// NaN element still makes its row NaN through exp). A maximum of -0 is
// returned as +0, so the lane order of the comparisons never shows.
template <typename V>
inline float RowMax(const float* x, int64_t n) {
  constexpr int kW = kWidth<V>;
  V m = V{} - std::numeric_limits<float>::infinity();
  int64_t k = 0;
  for (; k + kW <= n; k += kW) {
    V v;
    std::memcpy(&v, x + k, sizeof v);
    m = v > m ? v : m;
  }
  if (kW > vec::kLanes && k < n) {  // the tail as one vector padded with -inf
    V v;
    LoadPadded(x + k, n - k, -std::numeric_limits<float>::infinity(), &v);
    m = v > m ? v : m;
    k = n;
  }
  // No lane holds NaN: the maximum is the same in any order (but for the
  // sign of a zero, made + below).
  const vec::F4 m4 = FoldTo4<true>(&m);
  const float m01 = m4[1] > m4[0] ? m4[1] : m4[0], m23 = m4[3] > m4[2] ? m4[3] : m4[2];
  float r = m23 > m01 ? m23 : m01;
  for (; k < n; ++k) r = x[k] > r ? x[k] : r;
  return r + 0.0f;
}

// The terms of one vector of exps: 1s counted in `ones`, the others (NaN
// included) left in *e, the 1s there made 0.
template <typename V>
inline void SplitOnes(V* e, V* ones) {
  const V zero = {};
  const auto one = *e == zero + 1.0f;
  *ones += one ? zero + 1.0f : zero;
  *e = one ? zero : *e;
}

// One vector of terms from x: exp(x[i] - m), stored to out unless it is
// null, its 1s counted in `ones` and the others left in *term.
template <typename V>
inline void Terms(const float* x, float m, float* out, V* ones, V* term) {
  V e;
  std::memcpy(&e, x, sizeof e);
  e -= m;
  vec::ExpInPlace(&e);
  if (out != nullptr) std::memcpy(out, &e, sizeof e);
  SplitOnes(&e, ones);
  *term = e;
}

// ExpSum of exp(x[k] - m) over a contiguous float row, in double: each group
// of 16 terms t[0..15] is first folded in float to the 4 sums
// (t[i] + t[i+8]) + (t[i+4] + t[i+12]), whatever the width. The exps are
// stored to `out` unless it is null.
template <typename V>
inline ExpSum RowExpSum(const float* x, int64_t n, float m, float* out) {
  constexpr int kW = kWidth<V>;
  vec::D2 lo = {0, 0}, hi = {0, 0};
  V ones = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    float* o = out == nullptr ? nullptr : out + k;
    vec::F4 rest;
    if constexpr (kW == 4) {
      V t0, t1, t2, t3;
      Terms(x + k, m, o, &ones, &t0);
      Terms(x + k + 4, m, o == nullptr ? nullptr : o + 4, &ones, &t1);
      Terms(x + k + 8, m, o == nullptr ? nullptr : o + 8, &ones, &t2);
      Terms(x + k + 12, m, o == nullptr ? nullptr : o + 12, &ones, &t3);
      rest = (t0 + t2) + (t1 + t3);
    } else if constexpr (kW == 16) {
      V t0;
      Terms(x + k, m, o, &ones, &t0);
      const vec::F8 s = __builtin_shufflevector(t0, t0, 0, 1, 2, 3, 4, 5, 6, 7) +
                        __builtin_shufflevector(t0, t0, 8, 9, 10, 11, 12, 13, 14, 15);
      rest = __builtin_shufflevector(s, s, 0, 1, 2, 3) + __builtin_shufflevector(s, s, 4, 5, 6, 7);
    } else {
      static_assert(kW == 8);
      V t0, t1;
      Terms(x + k, m, o, &ones, &t0);
      Terms(x + k + 8, m, o == nullptr ? nullptr : o + 8, &ones, &t1);
      const V s = t0 + t1;
      rest = __builtin_shufflevector(s, s, 0, 1, 2, 3) + __builtin_shufflevector(s, s, 4, 5, 6, 7);
    }
    vec::AddWide(rest, &lo, &hi);
  }
  vec::F4 ones4 = {};
  // The tail (< 16 elements), one whole vector at a time: the exps of
  // `len` padded lanes, then added 4 lanes at a time as the 4-lane loop
  // below adds them (padding -inf: exp gives 0, nothing added), so the bits
  // are the same at every width.
  for (; kW > vec::kLanes && k < n; k += kW) {
    const int64_t len = n - k < kW ? n - k : kW;
    alignas(64) float buf[kW];
    V e;
    LoadPadded(x + k, len, -std::numeric_limits<float>::infinity(), &e);
    e -= m;
    vec::ExpInPlace(&e);
    std::memcpy(buf, &e, sizeof e);
    if (out != nullptr) std::memcpy(out + k, buf, static_cast<size_t>(len) * sizeof(float));
    for (int64_t q = 0; q < len; q += vec::kLanes) {
      vec::F4 t = vec::Load(buf + q);
      SplitOnes(&t, &ones4);
      vec::AddWide(t, &lo, &hi);
    }
  }
  for (; k < n; k += vec::kLanes) {
    const int64_t len = n - k < vec::kLanes ? n - k : vec::kLanes;
    // Padding lanes are -inf: exp gives 0, nothing added.
    vec::F4 e = vec::LoadPartial(x + k, len, -std::numeric_limits<float>::infinity()) - m;
    vec::ExpInPlace(&e);
    if (out != nullptr) vec::StorePartial(out + k, e, len);
    SplitOnes(&e, &ones4);
    vec::AddWide(e, &lo, &hi);
  }
  const vec::D2 s = lo + hi;
  ExpSum r;
  r.rest = s[0] + s[1];
  // Whole counts below 2^24: exact in float and in any order.
  const vec::F4 o = FoldTo4<false>(&ones) + ones4;
  r.ones = (o[0] + o[1]) + (o[2] + o[3]);
  return r;
}

// Softmax / LogSoftmax of `rows` contiguous float rows of n elements.
template <typename V, bool kLog>
inline void RowsOf(const float* x, int64_t rows, int64_t n, float* out) {
  for (int64_t o = 0; o < rows; ++o, x += n, out += n) {
    const float m = RowMax<V>(x, n);
    if constexpr (kLog) {
      const float log_sum = static_cast<float>(RowExpSum<V>(x, n, m, nullptr).Log());
      // (x - m) <= 0 and log_sum >= 0: no cancellation in float.
      for (int64_t k = 0; k < n; ++k) out[k] = (x[k] - m) - log_sum;
    } else {
      const float inv = static_cast<float>(1.0 / RowExpSum<V>(x, n, m, out).Total());
      for (int64_t k = 0; k < n; ++k) out[k] *= inv;
    }
  }
}

template <typename V>
inline void StatsOf(const float* x, int64_t n, float* max_out, double* log_sum_out) {
  *max_out = RowMax<V>(x, n);
  *log_sum_out = RowExpSum<V>(x, n, *max_out, nullptr).Log();
}

void RowsBaseline(bool log, const float* x, int64_t rows, int64_t n, float* out) {
  log ? RowsOf<vec::F4, true>(x, rows, n, out) : RowsOf<vec::F4, false>(x, rows, n, out);
}
void StatsBaseline(const float* x, int64_t n, float* max_out, double* log_sum_out) {
  StatsOf<vec::F4>(x, n, max_out, log_sum_out);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EAGERVM_SOFTMAX_AVX2 1
// flatten: every helper above is inlined into these, so built for AVX2 too.
__attribute__((target("avx2"), flatten)) void RowsAvx2(bool log, const float* x, int64_t rows,
                                                       int64_t n, float* out) {
  log ? RowsOf<vec::F8, true>(x, rows, n, out) : RowsOf<vec::F8, false>(x, rows, n, out);
}
__attribute__((target("avx2"), flatten)) void StatsAvx2(const float* x, int64_t n, float* max_out,
                                                        double* log_sum_out) {
  StatsOf<vec::F8>(x, n, max_out, log_sum_out);
}
// AVX-512F: EAGERVM_AVX512_NO_FMA (vec_exp.h).
EAGERVM_AVX512_NO_FMA void RowsAvx512(bool log, const float* x, int64_t rows, int64_t n,
                                      float* out) {
  log ? RowsOf<vec::F16, true>(x, rows, n, out) : RowsOf<vec::F16, false>(x, rows, n, out);
}
EAGERVM_AVX512_NO_FMA void StatsAvx512(const float* x, int64_t n, float* max_out,
                                       double* log_sum_out) {
  StatsOf<vec::F16>(x, n, max_out, log_sum_out);
}

// Rows of n < 16 elements, 16 rows at a time with one row per lane (the
// elements gathered, the results scattered back): the same float operations
// per element as RowMax and RowExpSum's tail above, and the same order of
// the double sums (term 4g + l of a row added to sum l, g ascending, then
// (sum 0 + sum 2) + (sum 1 + sum 3); padding terms, 0, left out: adding 0
// changes nothing), so bitwise the same results, without each row's scalar
// steps. kind: 0 Softmax, 1 LogSoftmax (out), 2 the statistics of Stats
// (max_out, log_sum_out).
EAGERVM_AVX512_NO_FMA void ShortRowsAvx512(int kind, const float* x, int64_t rows, int64_t n,
                                           float* out, float* max_out, double* log_sum_out) {
  using V = vec::F16;
  typedef double D8 __attribute__((vector_size(64)));
  typedef float H8 __attribute__((vector_size(32)));
  const float inf = std::numeric_limits<float>::infinity();
  const __m512i start =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int>(n)));
  for (int64_t r0 = 0; r0 < rows; r0 += 16) {
    const int64_t count = rows - r0 < 16 ? rows - r0 : 16;
    const __mmask16 live = static_cast<__mmask16>((1u << count) - 1);
    const float* block = x + r0 * n;
    V v[15];
    V m = V{} - inf;
    for (int64_t j = 0; j < n; ++j) {
      const __m512i at = _mm512_add_epi32(start, _mm512_set1_epi32(static_cast<int>(j)));
      v[j] = (V)_mm512_mask_i32gather_ps(_mm512_setzero_ps(), live, at, block, 4);
      m = v[j] > m ? v[j] : m;  // NaN skipped
    }
    m = m + 0.0f;  // a zero maximum as +0, whichever zero came first
    V e[15];
    V ones = {};
    D8 sum[4][2] = {};
    for (int64_t j = 0; j < n; ++j) {
      e[j] = v[j] - m;
      vec::ExpInPlace(&e[j]);
      const V zero = {};
      const auto one = e[j] == zero + 1.0f;
      ones += one ? zero + 1.0f : zero;
      const V t = one ? zero : e[j];
      const H8 lo = __builtin_shufflevector(t, t, 0, 1, 2, 3, 4, 5, 6, 7);
      const H8 hi = __builtin_shufflevector(t, t, 8, 9, 10, 11, 12, 13, 14, 15);
      sum[j % 4][0] += __builtin_convertvector(lo, D8);
      sum[j % 4][1] += __builtin_convertvector(hi, D8);
    }
    alignas(64) double rest[16], count_ones[16];
    for (int h = 0; h < 2; ++h) {
      const D8 r = (sum[0][h] + sum[2][h]) + (sum[1][h] + sum[3][h]);
      std::memcpy(rest + 8 * h, &r, sizeof r);
    }
    for (int l = 0; l < 16; ++l) count_ones[l] = static_cast<double>(ones[l]);
    if (kind == 0) {
      alignas(64) float inv[16];
      for (int l = 0; l < 16; ++l) inv[l] = static_cast<float>(1.0 / (count_ones[l] + rest[l]));
      V scale;
      std::memcpy(&scale, inv, sizeof scale);
      for (int64_t j = 0; j < n; ++j) {
        const __m512i at = _mm512_add_epi32(start, _mm512_set1_epi32(static_cast<int>(j)));
        _mm512_mask_i32scatter_ps(out + r0 * n, live, at, (__m512)(e[j] * scale), 4);
      }
      continue;
    }
    alignas(64) double log_sum[16];
    for (int l = 0; l < count; ++l) {
      log_sum[l] = count_ones[l] == 1 ? std::log1p(rest[l]) : std::log(count_ones[l] + rest[l]);
    }
    if (kind == 2) {
      for (int l = 0; l < count; ++l) {
        max_out[r0 + l] = m[l];
        log_sum_out[r0 + l] = log_sum[l];
      }
      continue;
    }
    alignas(64) float log_sum_f[16] = {};
    for (int l = 0; l < count; ++l) log_sum_f[l] = static_cast<float>(log_sum[l]);
    V ls;
    std::memcpy(&ls, log_sum_f, sizeof ls);
    for (int64_t j = 0; j < n; ++j) {
      const __m512i at = _mm512_add_epi32(start, _mm512_set1_epi32(static_cast<int>(j)));
      _mm512_mask_i32scatter_ps(out + r0 * n, live, at, (__m512)((v[j] - m) - ls), 4);
    }
  }
}
#endif

}  // namespace

bool Supported(Isa isa) {
  if (isa == Isa::kBaseline) return true;
#ifdef EAGERVM_SOFTMAX_AVX2
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return isa == Isa::kAvx2 ? avx2 : avx512;
#else
  return false;
#endif
}

Isa Chosen() {
  if (Supported(Isa::kAvx512)) return Isa::kAvx512;
  return Supported(Isa::kAvx2) ? Isa::kAvx2 : Isa::kBaseline;
}

void Rows(Isa isa, bool log, const float* x, int64_t rows, int64_t n, float* out) {
#ifdef EAGERVM_SOFTMAX_AVX2
  if (isa == Isa::kAvx512 && Supported(Isa::kAvx512)) {
    if (n < 16) return ShortRowsAvx512(log ? 1 : 0, x, rows, n, out, nullptr, nullptr);
    return RowsAvx512(log, x, rows, n, out);
  }
  if (isa == Isa::kAvx2 && Supported(Isa::kAvx2)) return RowsAvx2(log, x, rows, n, out);
#endif
  RowsBaseline(log, x, rows, n, out);
}

void Stats(Isa isa, const float* x, int64_t n, float* max_out, double* log_sum_out) {
#ifdef EAGERVM_SOFTMAX_AVX2
  if (isa == Isa::kAvx512 && Supported(Isa::kAvx512)) {
    return StatsAvx512(x, n, max_out, log_sum_out);
  }
  if (isa == Isa::kAvx2 && Supported(Isa::kAvx2)) return StatsAvx2(x, n, max_out, log_sum_out);
#endif
  StatsBaseline(x, n, max_out, log_sum_out);
}

void StatsRows(Isa isa, const float* x, int64_t rows, int64_t n, float* max_out,
               double* log_sum_out) {
#ifdef EAGERVM_SOFTMAX_AVX2
  if (isa == Isa::kAvx512 && Supported(Isa::kAvx512) && n < 16) {
    return ShortRowsAvx512(2, x, rows, n, nullptr, max_out, log_sum_out);
  }
#endif
  for (int64_t r = 0; r < rows; ++r) Stats(isa, x + r * n, n, max_out + r, log_sum_out + r);
}

absl::Status CheckLabels(const int64_t* labels, int64_t n, int64_t c) {
  for (int64_t r = 0; r < n; ++r) {
    if (labels[r] < 0 || labels[r] >= c) {
      return absl::InvalidArgumentError(base::Cat("labels[", r, "] = ", labels[r],
                                                  " is out of range for ", c,
                                                  " classes (valid: [0, ", c, "))"));
    }
  }
  return absl::OkStatus();
}

}  // namespace softmax_rows

namespace {

// One row of n elements at stride `st`: its maximum (NaN if any is NaN, or
// with NaN skipped for contiguous float rows) and the log of the sum of
// exp(x - max), summed in double.
template <typename T>
void RowStats(const T* x, int64_t n, int64_t st, T* max_out, double* log_sum_out) {
  if constexpr (std::is_same_v<T, float>) {
    if (st == 1) {
      softmax_rows::Stats(softmax_rows::Chosen(), x, n, max_out, log_sum_out);
      return;
    }
  }
  T m = x[0];
  for (int64_t k = 1; k < n; ++k) m = MaxOp::Apply(m, x[k * st]);
  ExpSum sum;
  for (int64_t k = 0; k < n; ++k) {
    const double v = ExpOf<T>(x[k * st] - m);
    if (v == 1) {
      sum.ones += 1;
    } else {
      sum.rest += v;
    }
  }
  *max_out = m;
  *log_sum_out = sum.Log();
}

template <bool kLog>
struct SoftmaxK {
  template <typename T>
  struct Kernel {
    static absl::Status Run(KernelContext& ctx) {
      const SoftmaxExtent e = SoftmaxExtentOf(ctx.input_meta(0).shape, ctx.scalar(0).to<int64_t>());
      if (e.n == 0 || e.outer == 0 || e.inner == 0) return absl::OkStatus();
      const T* x = ctx.input<T>(0);
      T* out = ctx.output<T>(0);
      if constexpr (std::is_same_v<T, float>) {
        if (e.inner == 1) {
          softmax_rows::Rows(softmax_rows::Chosen(), kLog, x, e.outer, e.n, out);
          return absl::OkStatus();
        }
      }
      for (int64_t o = 0; o < e.outer; ++o) {
        for (int64_t i = 0; i < e.inner; ++i) {
          const int64_t base = o * e.n * e.inner + i;
          const T* row = x + base;
          T* orow = out + base;
          const int64_t st = e.inner;
          if constexpr (kLog) {
            T m;
            double log_sum;
            RowStats(row, e.n, st, &m, &log_sum);
            for (int64_t k = 0; k < e.n; ++k) {
              orow[k * st] = static_cast<T>(static_cast<double>(row[k * st] - m) - log_sum);
            }
          } else {
            // exp once per element: kept in the output, then scaled.
            T m = row[0];
            for (int64_t k = 1; k < e.n; ++k) m = MaxOp::Apply(m, row[k * st]);
            double sum = 0;
            for (int64_t k = 0; k < e.n; ++k) {
              const double v = ExpOf<T>(row[k * st] - m);
              sum += v;
              orow[k * st] = static_cast<T>(v);
            }
            const double inv = 1.0 / sum;
            for (int64_t k = 0; k < e.n; ++k) {
              orow[k * st] = static_cast<T>(static_cast<double>(orow[k * st]) * inv);
            }
          }
        }
      }
      return absl::OkStatus();
    }
  };
};

// mean over rows of log(sum exp(x - max)) + max - x[label]. Every label is
// checked before any row is read.
template <typename T>
struct CrossEntropy {
  static absl::Status Run(KernelContext& ctx) {
    const int64_t n = ctx.input_meta(0).shape[0], c = ctx.input_meta(0).shape[1];
    const T* x = ctx.input<T>(0);
    const int64_t* labels = ctx.input<int64_t>(1);
    if (absl::Status s = softmax_rows::CheckLabels(labels, n, c); !s.ok()) return s;
    double total = 0;
    if constexpr (std::is_same_v<T, float>) {  // every row's statistics at once
      if (n > 0) {
        absl::StatusOr<void*> tmp = ctx.AllocateTemp(static_cast<size_t>(n) * 12);
        if (!tmp.ok()) return tmp.status();
        double* log_sums = static_cast<double*>(*tmp);
        float* maxes = reinterpret_cast<float*>(log_sums + n);
        softmax_rows::StatsRows(softmax_rows::Chosen(), x, n, c, maxes, log_sums);
        for (int64_t r = 0; r < n; ++r) {
          total += log_sums[r] - static_cast<double>(x[r * c + labels[r]] - maxes[r]);
        }
      }
    } else {
      for (int64_t r = 0; r < n; ++r) {
        const T* row = x + r * c;
        T m;
        double log_sum;
        RowStats(row, c, 1, &m, &log_sum);
        total += log_sum - static_cast<double>(row[labels[r]] - m);
      }
    }
    // The mean of nothing is NaN (as numpy's and torch's).
    ctx.output<T>(0)[0] = n == 0 ? std::numeric_limits<T>::quiet_NaN()
                                 : static_cast<T>(total / static_cast<double>(n));
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterSoftmaxCpuKernels(internal::OpRegistry& r) {
  RegisterCpu<SoftmaxK<false>::Kernel>(r, builtin::kSoftmax, kFloatDTypes);
  RegisterCpu<SoftmaxK<true>::Kernel>(r, builtin::kLogSoftmax, kFloatDTypes);
  RegisterCpu<CrossEntropy>(r, builtin::kCrossEntropy, kFloatDTypes);
}

}  // namespace eagervm::kernels
