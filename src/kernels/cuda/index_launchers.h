// Launchers of the CUDA kernels that take indices from a tensor: the index
// check, IndexSelect, OneHot (index.cu), IndexAdd (index_add.cu) and
// CrossEntropy (cross_entropy.cu). Plain C++17 with CUDA runtime types, as
// launchers.h. Each enqueues on `stream` and returns the first CUDA error.
//
// Every index is checked before these kernels run (LaunchFindBadIndex, read
// back by index_check.cc), so they see only indices in range; IndexSelect,
// OneHot and CrossEntropy still test each one they use and never read or
// write out of bounds whatever the index holds.
#ifndef EAGERVM_KERNELS_CUDA_INDEX_LAUNCHERS_H_
#define EAGERVM_KERNELS_CUDA_INDEX_LAUNCHERS_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/launchers.h"

namespace eagervm::kernels::cuda {

// *first_bad = the smallest j < m with index[j] outside [0, n), or
// kNoBadIndex when there is none (the launcher sets it first).
inline constexpr uint64_t kNoBadIndex = ~uint64_t{0};
cudaError_t LaunchFindBadIndex(const int64_t* index, int64_t m, int64_t n, uint64_t* first_bad,
                               cudaStream_t stream);

// numpy.take(x, index, axis) with x seen as [outer, n, inner] and the output
// as [outer, m, inner]; elements of `elem_bytes` (1, 2, 4 or 8) bytes.
cudaError_t LaunchIndexSelect(int elem_bytes, void* out, const void* x, const int64_t* index,
                              int64_t outer, int64_t n, int64_t inner, int64_t m,
                              cudaStream_t stream);

// out[i, k] = (k == index[i]) for i < rows, k < classes; any DT.
cudaError_t LaunchOneHot(DT dt, void* out, const int64_t* index, int64_t rows, int64_t classes,
                         cudaStream_t stream);

// IndexAdd: out = x (unless out == x), then each source row [o, j, :] added
// to out[o, index[j], :] in increasing j, as the CPU does: the indices are
// sorted stably (cub radix sort), and one thread per (o, run of equal
// indices, k) adds its run in order, so the result is deterministic and
// bitwise the CPU's. int32, int64, float32, float64. `scratch` holds
// IndexAddScratchBytes(...) bytes (may be null when that is 0).
size_t IndexAddScratchBytes(int64_t outer, int64_t n, int64_t inner, int64_t m);
cudaError_t LaunchIndexAdd(DT dt, void* out, const void* x, const int64_t* index,
                           const void* source, int64_t outer, int64_t n, int64_t inner, int64_t m,
                           void* scratch, size_t scratch_bytes, cudaStream_t stream);

// CrossEntropy of [rows, classes] logits against int64 labels: the mean over
// rows of log(sum(exp(x - max))) - (x[label] - max), in double (float for
// the exps of float32 and the 16-bit floats, double for float64); NaN for no
// rows. *out is one element of dt (float32, float64, float16, bfloat16).
// `scratch` holds CrossEntropyScratchBytes(rows) bytes.
size_t CrossEntropyScratchBytes(int64_t rows);
cudaError_t LaunchCrossEntropy(DT dt, void* out, const void* logits, const int64_t* labels,
                               int64_t rows, int64_t classes, void* scratch, cudaStream_t stream);

}  // namespace eagervm::kernels::cuda

#endif  // EAGERVM_KERNELS_CUDA_INDEX_LAUNCHERS_H_
