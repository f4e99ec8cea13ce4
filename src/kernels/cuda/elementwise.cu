// Elementwise kernels: Fill, binary ops with broadcasting, tensor-scalar ops,
// unary ops. Grid-stride loops over int64 indices.
#include <cmath>
#include <cstdint>

#include "kernels/cuda/device_util.cuh"

namespace eagervm::kernels::cuda {
namespace {

template <typename T>
__global__ void FillKernel(T* out, int64_t n, T v) {
  EAGERVM_GRID_STRIDE(i, n) out[i] = v;
}

template <typename T>
__device__ __forceinline__ T ApplyBinary(BinaryKind op, T a, T b) {
  switch (op) {
    case BinaryKind::kAdd:
      return WrapAdd(a, b);
    case BinaryKind::kSub:
      return WrapSub(a, b);
    case BinaryKind::kMul:
      return WrapMul(a, b);
    case BinaryKind::kDiv:
      if constexpr (kIsInt<T>) {
        // The CPU rejects a zero divisor before computing; a device cannot
        // without a host round trip, so x / 0 is 0 here (docs/cuda.md).
        if (b == T{0}) return T{0};
        return WrapDiv(a, b);
      } else if constexpr (std::is_same_v<T, bool>) {
        return a;
      } else {
        return a / b;
      }
    case BinaryKind::kMax:
      return MaxOf(a, b);
  }
  return a;
}

// Contiguous operands move in 16-byte packs (one 128-bit load or store per
// operand and step: a 1 GiB add ran at 0.64x of a device copy's bandwidth
// with one element per load) when every pointer is 16-byte aligned; work
// item i < n / kW is pack i, the rest are the tail's single elements. `f`
// maps the element index and its inputs' values to the output's value.
template <typename T>
struct alignas(16) Pack16 {
  static constexpr int kW = 16 / sizeof(T);
  T v[kW];
};

inline bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

template <typename T>
int64_t PackedItems(int64_t n) {
  constexpr int kW = Pack16<T>::kW;
  return n / kW + n % kW;
}

// Op is a template parameter so each kernel has one inlined operation.
template <BinaryKind Op, typename T>
__global__ void BinarySameKernel(T* out, const T* a, const T* b, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) out[i] = ApplyBinary(Op, a[i], b[i]);
}

template <BinaryKind Op, typename T>
__global__ void BinarySamePackedKernel(T* out, const T* a, const T* b, int64_t n) {
  constexpr int kW = Pack16<T>::kW;
  const int64_t packs = n / kW;
  EAGERVM_GRID_STRIDE(i, packs + n % kW) {
    if (i < packs) {
      const Pack16<T> x = reinterpret_cast<const Pack16<T>*>(a)[i];
      const Pack16<T> y = reinterpret_cast<const Pack16<T>*>(b)[i];
      Pack16<T> r;
#pragma unroll
      for (int k = 0; k < kW; ++k) r.v[k] = ApplyBinary(Op, x.v[k], y.v[k]);
      reinterpret_cast<Pack16<T>*>(out)[i] = r;
    } else {
      const int64_t e = packs * kW + (i - packs);
      out[e] = ApplyBinary(Op, a[e], b[e]);
    }
  }
}

template <BinaryKind Op, typename T>
__global__ void BinaryScalarKernel(T* out, const T* x, T s, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) out[i] = ApplyBinary(Op, x[i], s);
}

template <BinaryKind Op, typename T>
__global__ void BinaryScalarPackedKernel(T* out, const T* x, T s, int64_t n) {
  constexpr int kW = Pack16<T>::kW;
  const int64_t packs = n / kW;
  EAGERVM_GRID_STRIDE(i, packs + n % kW) {
    if (i < packs) {
      const Pack16<T> v = reinterpret_cast<const Pack16<T>*>(x)[i];
      Pack16<T> r;
#pragma unroll
      for (int k = 0; k < kW; ++k) r.v[k] = ApplyBinary(Op, v.v[k], s);
      reinterpret_cast<Pack16<T>*>(out)[i] = r;
    } else {
      const int64_t e = packs * kW + (i - packs);
      out[e] = ApplyBinary(Op, x[e], s);
    }
  }
}

template <BinaryKind Op, typename T>
__global__ void BinaryBroadcastKernel(T* out, const T* a, const T* b, BroadcastArgs p, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) {
    int64_t rem = i, ia = 0, ib = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t idx = rem % p.dims[d];
      rem /= p.dims[d];
      ia += idx * p.stride_a[d];
      ib += idx * p.stride_b[d];
    }
    out[i] = ApplyBinary(Op, a[ia], b[ib]);
  }
}

template <typename T>
__device__ __forceinline__ T ApplyUnary(UnaryKind op, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case UnaryKind::kRelu:
        return x < T{0} ? T{0} : x;  // keeps NaN
      case UnaryKind::kNeg:
        return -x;
      case UnaryKind::kExp:
        return exp(x);
      case UnaryKind::kLog:
        return log(x);
      case UnaryKind::kSigmoid:
        return T{1} / (T{1} + exp(-x));
      case UnaryKind::kTanh:
        return tanh(x);
      case UnaryKind::kSqrt:
        return sqrt(x);
    }
    return x;
  } else if constexpr (kIsInt<T>) {
    switch (op) {
      case UnaryKind::kRelu:
        return x < T{0} ? T{0} : x;
      case UnaryKind::kNeg:
        return WrapSub(T{0}, x);
      default:
        return x;  // float-only ops are not registered for integers
    }
  } else {
    return x;
  }
}

template <UnaryKind Op, typename T>
__global__ void UnaryKernel(T* out, const T* x, int64_t n) {
  EAGERVM_GRID_STRIDE(i, n) out[i] = ApplyUnary(Op, x[i]);
}

template <UnaryKind Op, typename T>
__global__ void UnaryPackedKernel(T* out, const T* x, int64_t n) {
  constexpr int kW = Pack16<T>::kW;
  const int64_t packs = n / kW;
  EAGERVM_GRID_STRIDE(i, packs + n % kW) {
    if (i < packs) {
      const Pack16<T> v = reinterpret_cast<const Pack16<T>*>(x)[i];
      Pack16<T> r;
#pragma unroll
      for (int k = 0; k < kW; ++k) r.v[k] = ApplyUnary(Op, v.v[k]);
      reinterpret_cast<Pack16<T>*>(out)[i] = r;
    } else {
      const int64_t e = packs * kW + (i - packs);
      out[e] = ApplyUnary(Op, x[e]);
    }
  }
}

template <BinaryKind Op, typename T>
cudaError_t Binary(T* out, const T* a, const T* b, const BroadcastArgs& p, int64_t n,
                   cudaStream_t s) {
  bool same = true;
  for (int d = 0; d < p.rank; ++d) same = same && p.stride_a[d] != 0 && p.stride_b[d] != 0;
  if (p.rank == 1 && same && Aligned16(out) && Aligned16(a) && Aligned16(b)) {
    BinarySamePackedKernel<Op, T><<<BlocksFor(PackedItems<T>(n)), kThreads, 0, s>>>(out, a, b, n);
  } else if (p.rank == 1 && same) {
    BinarySameKernel<Op, T><<<BlocksFor(n), kThreads, 0, s>>>(out, a, b, n);
  } else {
    BinaryBroadcastKernel<Op, T><<<BlocksFor(n), kThreads, 0, s>>>(out, a, b, p, n);
  }
  return cudaGetLastError();
}

// Turns a runtime op into a template argument.
template <typename F>
cudaError_t WithBinaryOp(BinaryKind op, F&& f) {
  switch (op) {
    case BinaryKind::kAdd:
      return f(std::integral_constant<BinaryKind, BinaryKind::kAdd>{});
    case BinaryKind::kSub:
      return f(std::integral_constant<BinaryKind, BinaryKind::kSub>{});
    case BinaryKind::kMul:
      return f(std::integral_constant<BinaryKind, BinaryKind::kMul>{});
    case BinaryKind::kDiv:
      return f(std::integral_constant<BinaryKind, BinaryKind::kDiv>{});
    case BinaryKind::kMax:
      return f(std::integral_constant<BinaryKind, BinaryKind::kMax>{});
  }
  return cudaErrorInvalidValue;
}

template <typename F>
cudaError_t WithUnaryOp(UnaryKind op, F&& f) {
  switch (op) {
    case UnaryKind::kRelu:
      return f(std::integral_constant<UnaryKind, UnaryKind::kRelu>{});
    case UnaryKind::kNeg:
      return f(std::integral_constant<UnaryKind, UnaryKind::kNeg>{});
    case UnaryKind::kExp:
      return f(std::integral_constant<UnaryKind, UnaryKind::kExp>{});
    case UnaryKind::kLog:
      return f(std::integral_constant<UnaryKind, UnaryKind::kLog>{});
    case UnaryKind::kSigmoid:
      return f(std::integral_constant<UnaryKind, UnaryKind::kSigmoid>{});
    case UnaryKind::kTanh:
      return f(std::integral_constant<UnaryKind, UnaryKind::kTanh>{});
    case UnaryKind::kSqrt:
      return f(std::integral_constant<UnaryKind, UnaryKind::kSqrt>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchFill(DT dt, void* out, int64_t n, ScalarArg value, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return DispatchAll(dt, [&](auto tag) {
    using T = decltype(tag);
    FillKernel<T><<<BlocksFor(n), kThreads, 0, s>>>(static_cast<T*>(out), n, FromScalar<T>(value));
    return cudaGetLastError();
  });
}

cudaError_t LaunchBinary(BinaryKind op, DT dt, void* out, const void* a, const void* b,
                         const BroadcastArgs& args, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return WithBinaryOp(op, [&](auto op_tag) {
    return DispatchU8(dt, [&](auto tag) {
      using T = decltype(tag);
      return Binary<decltype(op_tag)::value, T>(static_cast<T*>(out), static_cast<const T*>(a),
                                                static_cast<const T*>(b), args, n, s);
    });
  });
}

cudaError_t LaunchBinaryScalar(BinaryKind op, DT dt, void* out, const void* x, ScalarArg sv,
                               int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return WithBinaryOp(op, [&](auto op_tag) {
    return DispatchU8(dt, [&](auto tag) {
      using T = decltype(tag);
      if (Aligned16(out) && Aligned16(x)) {
        BinaryScalarPackedKernel<decltype(op_tag)::value, T>
            <<<BlocksFor(PackedItems<T>(n)), kThreads, 0, s>>>(
                static_cast<T*>(out), static_cast<const T*>(x), FromScalar<T>(sv), n);
      } else {
        BinaryScalarKernel<decltype(op_tag)::value, T><<<BlocksFor(n), kThreads, 0, s>>>(
            static_cast<T*>(out), static_cast<const T*>(x), FromScalar<T>(sv), n);
      }
      return cudaGetLastError();
    });
  });
}

cudaError_t LaunchUnary(UnaryKind op, DT dt, void* out, const void* x, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  return WithUnaryOp(op, [&](auto op_tag) {
    return Dispatch(dt, [&](auto tag) {
      using T = decltype(tag);
      if (Aligned16(out) && Aligned16(x)) {
        UnaryPackedKernel<decltype(op_tag)::value, T>
            <<<BlocksFor(PackedItems<T>(n)), kThreads, 0, s>>>(static_cast<T*>(out),
                                                               static_cast<const T*>(x), n);
      } else {
        UnaryKernel<decltype(op_tag)::value, T>
            <<<BlocksFor(n), kThreads, 0, s>>>(static_cast<T*>(out), static_cast<const T*>(x), n);
      }
      return cudaGetLastError();
    });
  });
}

}  // namespace eagervm::kernels::cuda
