// float32 matrix products with one side of at most 12: c = op(a) @ op(b)
// with n <= 12 (a classifier's output layer and its weight gradient) or
// k <= 12 (that layer's input gradient). OpenBLAS packs both operands into
// its blocked layout on every call and then runs its 16 x N micro-kernel
// over mostly padding: on [256, 512] x [512, 10] it reaches 45-65 GFLOP/s
// where it reaches ~97 on square shapes. These kernels, built for AVX-512F
// and used only where the CPU has it, keep every lane busy instead:
//   n <= 12, op(a) rows contiguous: dot products along k, 2 rows at a time;
//   n <= 12, op(a) = a^T:           columns of c 32 at a time, op(b) broadcast;
//   k <= 12:                        rows of c 2 at a time, 32 columns at a time,
//                                   op(a) broadcast, op(b) packed in panels.
// A different order of summation than BLAS's (results agree to rounding),
// the same order on every call with the same shapes. Any thread may call;
// nothing blocks; nothing allocates beyond a packed copy of b of at most
// 1 MiB per thread, kept for the next call (a larger one: Run declines).
#ifndef EAGERVM_KERNELS_CPU_SKINNY_GEMM_H_
#define EAGERVM_KERNELS_CPU_SKINNY_GEMM_H_

#include <cstdint>

namespace eagervm::kernels::skinny_gemm {

// Whether this process can run the kernels (an x86-64 build on a CPU with
// AVX-512F).
bool Supported();

// Whether Run would take c = op(a) @ op(b) for these extents (m, n, k >= 1):
// supported here, and the shape one these kernels run faster than BLAS.
bool Pays(int64_t m, int64_t n, int64_t k);

// c[m, n] = op(a) @ op(b); a is stored row-major [a0, a1] (op(a) = a^T where
// ta), b [b0, b1] (likewise tb), c row-major [m, n]. Returns false, writing
// nothing, unless Pays(m, n, k) and any packed copy of b fits 1 MiB.
bool Run(const float* a, const float* b, float* c, bool ta, bool tb, int64_t a0, int64_t a1,
         int64_t b0, int64_t b1);

}  // namespace eagervm::kernels::skinny_gemm

#endif  // EAGERVM_KERNELS_CPU_SKINNY_GEMM_H_
