// IndexAdd on the GPU, deterministic and in the CPU's order: atomics would
// add a repeated index's rows in whatever order the threads run, so floating
// results would change from run to run. Instead the m indices are sorted
// stably with their positions (cub radix sort: equal indices keep increasing
// positions), and one thread per (o, run of equal indices, k) adds its run's
// source rows to out[o, index, k] in that order, starting from x's value:
// the CPU's additions, in the CPU's order, so the same bits. The cost is the
// sort plus one pass over the source; a run of r repeats is r additions in
// sequence (as on the CPU).
#include <cub/device/device_radix_sort.cuh>

#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/index_launchers.h"

namespace eagervm::kernels::cuda {
namespace {

constexpr size_t kAlign = 256;
constexpr size_t AlignUp(size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

// Bits that hold every index in [0, n): the sort looks at these only.
int BitsFor(int64_t n) {
  int bits = 1;
  while (bits < 63 && (int64_t{1} << bits) < n) ++bits;
  return bits;
}

// The scratch, carved: sorted keys, positions (in, sorted), cub's own.
struct Carve {
  size_t keys = 0, pos_in = 0, pos_out = 0, cub = 0, cub_bytes = 0, total = 0;
};

Carve CarveFor(int64_t m, int64_t n) {
  Carve c;
  const size_t words = AlignUp(static_cast<size_t>(m) * sizeof(uint64_t));
  c.keys = 0;
  c.pos_in = words;
  c.pos_out = 2 * words;
  c.cub = 3 * words;
  // The size query launches nothing.
  (void)cub::DeviceRadixSort::SortPairs(
      nullptr, c.cub_bytes, static_cast<const uint64_t*>(nullptr), static_cast<uint64_t*>(nullptr),
      static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), m, 0, BitsFor(n));
  c.total = c.cub + AlignUp(c.cub_bytes);
  return c;
}

__global__ void IotaKernel(int64_t* pos, int64_t m) { EAGERVM_GRID_STRIDE(j, m) pos[j] = j; }

// One thread per (o, p, k) of [outer, m, inner]; those whose p starts a run
// of equal sorted indices add the run.
template <typename T>
__global__ void AddRunsKernel(T* out, const T* src, const uint64_t* keys, const int64_t* pos,
                              int64_t n, int64_t inner, int64_t m, int64_t total) {
  const int64_t row = m * inner;  // > 0: total > 0
  EAGERVM_GRID_STRIDE(e, total) {
    const int64_t o = e / row, rem = e % row;
    const int64_t p = rem / inner, k = rem % inner;
    const uint64_t key = keys[p];
    if (p > 0 && keys[p - 1] == key) continue;      // inside a run: its head adds it
    if (key >= static_cast<uint64_t>(n)) continue;  // never: the indices were checked
    T* at = out + (o * n + static_cast<int64_t>(key)) * inner + k;
    T acc = *at;
    for (int64_t q = p; q < m && keys[q] == key; ++q) {
      acc = WrapAdd(acc, src[(o * m + pos[q]) * inner + k]);
    }
    *at = acc;
  }
}

}  // namespace

size_t IndexAddScratchBytes(int64_t outer, int64_t n, int64_t inner, int64_t m) {
  if (outer * m * inner == 0) return 0;
  return CarveFor(m, n).total + kAlign;  // room to align the base
}

cudaError_t LaunchIndexAdd(DT dt, void* out, const void* x, const int64_t* index,
                           const void* source, int64_t outer, int64_t n, int64_t inner, int64_t m,
                           void* scratch, size_t scratch_bytes, cudaStream_t s) {
  const int64_t x_total = outer * n * inner;  // x's numel
  if (x_total > 0 && out != x) {
    const cudaError_t e = cudaMemcpyAsync(out, x, static_cast<size_t>(x_total) * ElemBytes(dt),
                                          cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess) return e;
  }
  const int64_t total = outer * m * inner;  // the source's numel
  if (total == 0) return cudaSuccess;       // nothing to add (m == 0 or an empty row)
  const Carve c = CarveFor(m, n);
  if (scratch == nullptr || scratch_bytes < c.total + kAlign) return cudaErrorInvalidValue;
  // cub wants its storage aligned; so do the 8-byte arrays.
  char* base = static_cast<char*>(scratch) +
               (kAlign - reinterpret_cast<uintptr_t>(scratch) % kAlign) % kAlign;
  auto* keys = reinterpret_cast<uint64_t*>(base + c.keys);
  auto* pos_in = reinterpret_cast<int64_t*>(base + c.pos_in);
  auto* pos_out = reinterpret_cast<int64_t*>(base + c.pos_out);
  IotaKernel<<<BlocksFor(m), kThreads, 0, s>>>(pos_in, m);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  size_t cub_bytes = c.cub_bytes;
  // The indices, checked to lie in [0, n), sort as unsigned numbers.
  if (cudaError_t e = cub::DeviceRadixSort::SortPairs(base + c.cub, cub_bytes,
                                                      reinterpret_cast<const uint64_t*>(index),
                                                      keys, pos_in, pos_out, m, 0, BitsFor(n), s);
      e != cudaSuccess) {
    return e;
  }
  return Dispatch(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return cudaErrorInvalidValue;  // IndexAdd is numeric
    } else {
      AddRunsKernel<T><<<BlocksFor(total), kThreads, 0, s>>>(
          static_cast<T*>(out), static_cast<const T*>(source), keys, pos_out, n, inner, m, total);
      return cudaGetLastError();
    }
  });
}

}  // namespace eagervm::kernels::cuda
