// libFuzzer target: what users type must give statuses, never crashes.
//   byte 0 even: the rest is an environment (lines NAME=VALUE) for the
//     EAGERVM_* parser (base::ParseEnv, the process env is not touched): every
//     value it applies must re-parse to itself and give options Configure()
//     accepts; ParseByteSize must give a non-negative size or a status.
//   byte 0 % 4 == 3: DLPack imports with fuzzed dtype, shape, strides, byte
//     offset and alignment (a producer's fields are untrusted);
//   byte 0 % 4 == 1: the rest is a sequence of op calls with bad shapes (negative,
//     more than kMaxDims, overflowing), dtypes the op does not take, scalars
//     that do not fit, bad axes and ranges, custom-op attrs of the wrong type,
//     unknown ops, a missing device; each result is waited for, then dropped.
// The VM runs with a 64 MiB CPU limit and no OOM wait, so huge valid shapes
// fail fast with ResourceExhausted.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "base/byte_size.h"
#include "base/env_registry.h"
#include "byte_choices.h"
#include "eagervm/dlpack.h"
#if EAGERVM_HAS_DLPACK
#include <dlpack/dlpack.h>
#endif
#include "eagervm/eagervm.h"
#include "random_program_ops.h"
#include "vm/lifecycle/vm_options_env.h"

namespace {

using namespace eagervm;  // NOLINT: a fuzz target's whole vocabulary

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "validation_fuzzer: %s\n", what.c_str());
  std::abort();
}

using Bytes = fuzz::ByteChoices;

// ---- environment ----

void FuzzEnv(const std::string& text) {
  std::vector<std::string> env;
  const std::vector<const base::EnvVar*> vars = base::EnvVars();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    // A first byte below 0x80 keeps the line as typed; else it names a variable.
    if (!line.empty() && static_cast<unsigned char>(line[0]) >= 0x80) {
      const base::EnvVar& var = *vars[static_cast<unsigned char>(line[0]) % vars.size()];
      const std::string value = line.substr(1);
      line = std::string(var.name) + "=" + value;
      absl::StatusOr<int64_t> bytes = base::ParseByteSize(value);
      if (bytes.ok() && *bytes < 0) Die("ParseByteSize('" + value + "') < 0");
      if (bytes.ok()) (void)base::FormatByteSize(*bytes);
    }
    env.push_back(std::move(line));
  }
  const base::ParsedEnv parsed = base::ParseEnv(env);
  for (const auto& [var, value] : parsed.values) {
    if (var->type == base::EnvType::kInt || var->type == base::EnvType::kByteSize) {
      const int64_t v = std::get<int64_t>(value);
      if (v < var->min || v > var->max) Die(std::string(var->name) + " applied out of range");
    }
  }
  const absl::Status s = VirtualMachine::Configure(vm::VmOptionsFromEnv(parsed));
  // The VM exists (LLVMFuzzerInitialize): valid options give FailedPrecondition.
  if (s.code() == absl::StatusCode::kInvalidArgument) {
    Die("ParseEnv gave options Configure() rejects: " + s.ToString());
  }
}

// ---- op calls ----

int64_t Dim(uint8_t b) {
  static constexpr int64_t kDims[] = {0,
                                      1,
                                      2,
                                      3,
                                      4,
                                      5,
                                      8,
                                      16,
                                      -1,
                                      -7,
                                      int64_t{1} << 20,
                                      int64_t{1} << 31,
                                      int64_t{1} << 40,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min(),
                                      6};
  return kDims[b % 16];
}

Shape AnyShape(Bytes& in) {
  const int rank = in.Byte() % 11;  // up to kMaxDims + 2
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(Dim(in.Byte()));
  return Shape(absl::MakeConstSpan(dims));
}

DType AnyDType(Bytes& in) { return static_cast<DType>(in.Byte() % kNumDTypes); }

Scalar AnyScalar(Bytes& in) {
  switch (in.Byte() % 8) {
    case 0:
      return Scalar(int64_t{0});
    case 1:
      return Scalar(int64_t{in.Byte()} - 128);
    case 2:
      return Scalar(std::numeric_limits<int64_t>::max());
    case 3:
      return Scalar(2.5);
    case 4:
      return Scalar(std::numeric_limits<double>::quiet_NaN());
    case 5:
      return Scalar(1e300);
    case 6:
      return Scalar(true);
    default:
      return Scalar(-0.0);
  }
}

void FuzzOps(Bytes& in) {
  std::vector<Tensor> pool = {Full({2, 3}, 1, DType::kFloat32), Full({3}, 2, DType::kInt64),
                              Full({}, 1, DType::kBool),        Full({0, 3}, 0, DType::kInt32),
                              Full({3, 2}, 4, DType::kFloat64), Full({1, 3}, 5, DType::kInt32)};
  auto pick = [&]() -> const Tensor& { return pool[in.Byte() % pool.size()]; };
  for (int step = 0; step < 64 && !in.at_end(); ++step) {
    Tensor t;
    absl::Status s;
    switch (in.Byte() % 18) {
      case 0:
        t = Full(AnyShape(in), AnyScalar(in), AnyDType(in));
        break;
      case 1:
        t = Empty(AnyShape(in), AnyDType(in));  // reading it is a runtime error
        break;
      case 2: {
        std::vector<float> v(in.Byte() % 32, 1.0f);
        t = FromVector<float>(v, AnyShape(in));
        break;
      }
      case 3:
        t = pick().Reshape(AnyShape(in));
        break;
      case 4:
        t = pick().Slice(Dim(in.Byte()), Dim(in.Byte()));
        break;
      case 5: {
        const Tensor& a = pick();
        const Tensor& b = pick();
        switch (in.Byte() % 5) {
          case 0:
            t = ops::Add(a, b);
            break;
          case 1:
            t = ops::Sub(a, b);
            break;
          case 2:
            t = ops::Mul(a, b);
            break;
          case 3:
            t = ops::Div(a, b);
            break;
          default:
            t = ops::Maximum(a, b);
        }
        break;
      }
      case 6: {
        const Tensor& a = pick();
        const Scalar sc = AnyScalar(in);
        switch (in.Byte() % 4) {
          case 0:
            t = ops::AddScalar(a, sc);
            break;
          case 1:
            t = ops::SubScalar(a, sc);
            break;
          case 2:
            t = ops::MulScalar(a, sc);
            break;
          default:
            t = ops::DivScalar(a, sc);
        }
        break;
      }
      case 7: {
        const Tensor& a = pick();
        switch (in.Byte() % 7) {
          case 0:
            t = ops::Relu(a);
            break;
          case 1:
            t = ops::Neg(a);
            break;
          case 2:
            t = ops::Exp(a);
            break;
          case 3:
            t = ops::Log(a);
            break;
          case 4:
            t = ops::Sigmoid(a);
            break;
          case 5:
            t = ops::Tanh(a);
            break;
          default:
            t = ops::Sqrt(a);
        }
        break;
      }
      case 8:
        t = ops::MatMul(pick(), pick());
        break;
      case 9:
        t = ops::Transpose(pick());
        break;
      case 10: {
        const Tensor& a = pick();
        const int axis = static_cast<int>(static_cast<int8_t>(in.Byte()));
        const bool keep = in.Byte() & 1;
        switch (in.Byte() % 6) {
          case 0:
            t = ops::Sum(a, axis, keep);
            break;
          case 1:
            t = ops::Mean(a, axis, keep);
            break;
          case 2:
            t = ops::Max(a, axis, keep);
            break;
          case 3:
            t = ops::Sum(a);
            break;
          case 4:
            t = ops::Mean(a);
            break;
          default:
            t = ops::Max(a);
        }
        break;
      }
      case 11:
        t = ops::Cast(pick(), AnyDType(in));
        break;
      case 12: {
        const Tensor& a = pick();
        switch (in.Byte() % 4) {
          case 0:
            s = ops::AddInplace(a, pick());
            break;
          case 1:
            s = ops::MulScalarInplace(a, AnyScalar(in));
            break;
          case 2:
            s = ops::CopyInto(a, pick());
            break;
          default:
            s = ops::FillInplace(a, AnyScalar(in));
        }
        break;
      }
      case 13:
        t = RandomNormal(AnyShape(in), AnyDType(in), Device::Cpu(), in.Byte());
        break;
      case 14: {  // custom ops: attrs of any type, unknown names
        Attrs attrs;
        switch (in.Byte() % 4) {
          case 0:
            attrs["fail"] = 2.5;  // the kernel's std::get throws: an Internal error
            break;
          case 1:
            attrs["fail"] = std::string("x");
            break;
          case 2:
            attrs["fail"] = int64_t{in.Byte()};
            break;
          default:
            break;
        }
        const char* names[] = {"random_program.AddOne", "random_program.AddOneInplace",
                               "no.such.op", "Add"};
        testing::detail::RegisterProgramOps();
        std::vector<Tensor> inputs;
        for (int n = in.Byte() % 3; n > 0; --n) inputs.push_back(pick());
        absl::StatusOr<std::vector<Tensor>> out = ops::Call(names[in.Byte() % 4], inputs, attrs);
        if (out.ok() && !out->empty()) t = (*out)[0];
        if (!out.ok()) s = out.status();
        break;
      }
      case 15:
        t = pick().To(Device::Cuda(in.Byte() % 3));
        break;
      case 16: {  // host reads of the wrong type or size
        const Tensor& a = pick();
        (void)a.Item<float>();
        (void)a.ToVector<int32_t>();
        std::vector<char> buf(in.Byte() % 64);
        (void)a.CopyToHost(buf.data(), buf.size());
        break;
      }
      default:
        (void)Sync();
    }
    if (t.defined()) {
      if (!t.ok() && t.status().ok()) Die("an error tensor with an OK status");
      (void)t.Wait();
      if (t.ok() && in.Byte() % 4 == 0 && pool.size() < 16) pool.push_back(t);
    }
  }
  (void)Sync();
  pool.clear();
  if (!Sync().ok()) Die("a Sync after a Sync reported an error");
}

// ---- DLPack import: a producer's fields are untrusted ----

#if EAGERVM_HAS_DLPACK
// A DLManagedTensor over a 256-byte buffer with fuzzed dtype, shape, strides,
// byte offset and alignment. Import must reject an element or byte count that
// overflows and a misaligned address (the deleter then not called); an
// accepted import whose bytes fit the buffer is read and summed; the deleter
// runs exactly once after the last handle and a Sync.
void FuzzDLPack(Bytes& in) {
  alignas(64) static unsigned char buffer[256 + 64];
  struct Owner {
    int deleted = 0;
  } owner;
  std::vector<int64_t> shape, strides;
  const int ndim = in.Byte() % 10 - 1;  // -1 .. 8 (9 is over kMaxDims, -1 invalid)
  for (int d = 0; d < std::max(ndim, 0); ++d) shape.push_back(Dim(in.Byte()));
  const bool with_strides = in.Byte() % 2 == 0;
  for (int d = 0; d < std::max(ndim, 0); ++d) strides.push_back(Dim(in.Byte()));
  static const DLDataType kTypes[] = {{kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLInt, 32, 1},
                                      {kDLInt, 64, 1},   {kDLUInt, 8, 1},   {kDLFloat, 16, 1}};
  DLManagedTensor m = {};
  DLTensor& dl = m.dl_tensor;
  dl.data = buffer + in.Byte() % 9;  // 0..8: misaligned for most dtypes
  dl.byte_offset = in.Byte() % 9;
  dl.device = DLDevice{kDLCPU, 0};
  dl.ndim = ndim;
  dl.dtype = kTypes[in.Byte() % 6];
  dl.shape = shape.data();
  dl.strides = with_strides ? strides.data() : nullptr;
  m.manager_ctx = &owner;
  m.deleter = [](DLManagedTensor* self) { ++static_cast<Owner*>(self->manager_ctx)->deleted; };

  Shape checked;
  for (int64_t d : shape) checked.push_back(d);
  const size_t elem = (dl.dtype.bits / 8) * dl.dtype.lanes;
  const uintptr_t address = reinterpret_cast<uintptr_t>(dl.data) + dl.byte_offset;
  bool must_reject =
      ndim < 0 || !checked.IsValid() || (checked.numel() > 0 && elem > 0 && address % elem != 0);
  {
    Tensor t = FromDLPack(&m);
    if (t.ok() && must_reject) {
      Die("FromDLPack accepted shape " + checked.ToString() + " at address offset " +
          std::to_string(address % 64));
    }
    if (!t.ok() && owner.deleted != 0) Die("a rejected import called its deleter");
    // The elements the import reads, by its strides (compact without): from
    // lo to hi elements after its first one.
    // Overflow anywhere: too large to fit.
    int64_t lo = 0, hi = 0, compact = 1;
    bool overflow = false;
    for (int d = std::max(ndim, 0) - 1; d >= 0 && t.ok(); --d) {
      const int64_t stride = with_strides ? strides[d] : compact;
      overflow |= __builtin_mul_overflow(compact, shape[d], &compact);
      if (shape[d] <= 0) continue;
      int64_t extent = 0;
      overflow |= __builtin_mul_overflow(shape[d] - 1, stride, &extent);
      overflow |= __builtin_add_overflow(extent < 0 ? lo : hi, extent, extent < 0 ? &lo : &hi);
    }
    const int64_t start =
        (static_cast<unsigned char*>(dl.data) - buffer) + static_cast<int64_t>(dl.byte_offset);
    const int64_t e = static_cast<int64_t>(elem);
    const bool fits =
        t.ok() && (t.numel() == 0 || (!overflow && lo > -256 && hi < 256 && start + lo * e >= 0 &&
                                      start + (hi + 1) * e + 8 <= 256));
    if (fits) {
      (void)t.Wait();
      if (t.dtype() == DType::kFloat32 || t.dtype() == DType::kFloat64) (void)ops::Sum(t).Wait();
    }
    if (t.ok() && !fits) t = Tensor();  // larger than the buffer: the fuzzer's lie, never read
  }
  (void)Sync();
  if (owner.deleted > 1) Die("an import's deleter ran more than once");
}
#endif

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  VmOptions opts;
  opts.cpu_memory_limit = 64 << 20;
  opts.oom_wait_ms = 0;
  if (!VirtualMachine::Configure(opts).ok()) Die("Configure failed");
  (void)VirtualMachine::Get();  // created now: FuzzEnv's Configure calls change nothing
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Bytes in(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    FuzzEnv(in.Rest());
  } else if (data[0] % 4 == 3) {
#if EAGERVM_HAS_DLPACK
    for (int i = 0; i < 8 && !in.at_end(); ++i) FuzzDLPack(in);
#endif
  } else {
    FuzzOps(in);
  }
  return 0;
}
