// The contiguous float32 row kernels of Softmax, LogSoftmax and CrossEntropy
// (softmax_kernels.cc), built for three instruction sets: the baseline
// (4-lane SSE2 vectors on x86-64), AVX2 (8 lanes) and AVX-512F (16 lanes),
// chosen once per process by what the CPU supports. All give bitwise the
// same results. Exposed so tests
// can run both on the same rows. Any thread may call; nothing blocks.
#ifndef EAGERVM_KERNELS_CPU_SOFTMAX_ROWS_H_
#define EAGERVM_KERNELS_CPU_SOFTMAX_ROWS_H_

#include <cstdint>

#include "absl/status/status.h"

namespace eagervm::kernels::softmax_rows {

enum class Isa { kBaseline, kAvx2, kAvx512 };

// Whether this process can run `isa`'s kernels (kBaseline: always; kAvx2,
// kAvx512: an x86-64 build on a CPU with AVX2, AVX-512F).
bool Supported(Isa isa);

// The one the kernels use: the widest supported.
Isa Chosen();

// Softmax (log = false) or LogSoftmax of `rows` rows of n > 0 floats stored
// one after another from x, written to out (same layout). An unsupported isa
// runs the baseline.
void Rows(Isa isa, bool log, const float* x, int64_t rows, int64_t n, float* out);

// One row of n > 0 floats: its maximum (NaN skipped) and the log of the sum
// of exp(x - max), as CrossEntropy uses them.
void Stats(Isa isa, const float* x, int64_t n, float* max_out, double* log_sum_out);

// Stats of `rows` rows of n > 0 floats stored one after another, into
// max_out[0..rows) and log_sum_out[0..rows): the same values as Stats row
// by row (rows under 16 elements go 16 at a time under AVX-512F).
void StatsRows(Isa isa, const float* x, int64_t rows, int64_t n, float* max_out,
               double* log_sum_out);

// CrossEntropy's (and its backward's) check of labels[0..n) against c
// classes: the first one out of range, named with its index and value.
absl::Status CheckLabels(const int64_t* labels, int64_t n, int64_t c);

}  // namespace eagervm::kernels::softmax_rows

#endif  // EAGERVM_KERNELS_CPU_SOFTMAX_ROWS_H_
