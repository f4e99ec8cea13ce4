// DLPack import/export (include/eagervm/dlpack.h, docs/interop.md): zero-copy
// round trips, the import deleter's timing (once, after the last queued use),
// and the rejections. Shutdown is process-wide: dlpack_shutdown_test.cc.
#include "eagervm/dlpack.h"

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

using namespace std::chrono_literals;

static_assert(EAGERVM_HAS_DLPACK == 1);

// A DLManagedTensor over memory the test owns; its deleter counts calls and
// records whether `kernel_done` was already set when it ran.
struct Producer {
  std::vector<char> bytes;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor managed = {};
  std::atomic<int> deleted{0};
  std::atomic<bool>* kernel_done = nullptr;
  std::atomic<bool> deleted_after_kernel{false};

  Producer(DLDataType dtype, std::vector<int64_t> dims, size_t elem_bytes)
      : shape(std::move(dims)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d > 0 ? d : 0;
    bytes.assign(static_cast<size_t>(n) * elem_bytes, 0);
    DLTensor& dl = managed.dl_tensor;
    dl.data = bytes.data();
    dl.device = DLDevice{kDLCPU, 0};
    dl.ndim = static_cast<int>(shape.size());
    dl.dtype = dtype;
    dl.shape = shape.data();
    dl.strides = nullptr;
    dl.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* m) {
      auto* p = static_cast<Producer*>(m->manager_ctx);
      if (p->kernel_done != nullptr) p->deleted_after_kernel = p->kernel_done->load();
      p->deleted.fetch_add(1);
    };
  }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes.data());
  }
};

constexpr DLDataType kF32{kDLFloat, 32, 1};

// Sync() runs after every release queued before it, so the count is final.
int DeletedAfterSync(const Producer& p) {
  EXPECT_TRUE(Sync().ok());
  return p.deleted.load();
}

template <typename T>
void RoundTrip(std::vector<T> values, DLDataType expected) {
  SCOPED_TRACE(ToString(DTypeOf<T>()));
  Tensor t = FromVector<T>(values, {2, 3});
  absl::StatusOr<DLManagedTensor*> m = ToDLPack(t);
  ASSERT_TRUE(m.ok()) << m.status();
  const DLTensor& dl = (*m)->dl_tensor;
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  EXPECT_EQ(dl.dtype.code, expected.code);
  EXPECT_EQ(dl.dtype.bits, expected.bits);
  EXPECT_EQ(dl.dtype.lanes, 1);
  ASSERT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.shape[0], 2);
  EXPECT_EQ(dl.shape[1], 3);
  ASSERT_NE(dl.strides, nullptr);
  EXPECT_EQ(dl.strides[0], 3);
  EXPECT_EQ(dl.strides[1], 1);
  EXPECT_EQ(dl.byte_offset, 0u);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(static_cast<const T*>(dl.data)[i], values[i]) << i;
  }
  void* exported = dl.data;

  // Back in: the same memory, and ops see the values. A bool comes back as
  // uint8 (DLPack 0.6 writes bool as {kDLUInt, 8}, which is uint8).
  Tensor back = FromDLPack(*m);
  ASSERT_TRUE(back.ok()) << back.status();
  if constexpr (std::is_same_v<T, bool>) {
    EXPECT_EQ(back.dtype(), DType::kUInt8);
    EXPECT_EQ(back.ToVector<uint8_t>().value(), std::vector<uint8_t>(values.begin(), values.end()));
    back = ops::Cast(back, DType::kBool);
    exported = nullptr;  // the Cast copied
  }
  EXPECT_EQ(back.dtype(), DTypeOf<T>());
  EXPECT_EQ(back.shape(), Shape({2, 3}));
  absl::StatusOr<std::vector<T>> read = back.template ToVector<T>();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, values);
  absl::StatusOr<DLManagedTensor*> again = ToDLPack(back);
  ASSERT_TRUE(again.ok());
  if (exported != nullptr) EXPECT_EQ((*again)->dl_tensor.data, exported);  // no copy either way
  (*again)->deleter(*again);
}

TEST(DLPack, RoundTripEveryDType) {
  static_assert(kNumDTypes == 8, "a new DType needs a row in interop/dlpack_dtype.cc and here");
  RoundTrip<uint8_t>({0, 1, 127, 128, 200, 255}, DLDataType{kDLUInt, 8, 1});
  RoundTrip<Half>({Half(1.5f), Half(-2.0f), Half(65504.0f), Half(0.0f), Half(1e-7f), Half(3.0f)},
                  DLDataType{kDLFloat, 16, 1});
  RoundTrip<BFloat16>({BFloat16(1.5f), BFloat16(-2.0f), BFloat16(3e38f), BFloat16(0.0f),
                       BFloat16(1e-30f), BFloat16(3.0f)},
                      DLDataType{kDLBfloat, 16, 1});
  RoundTrip<bool>({true, false, true, true, false, false}, DLDataType{kDLUInt, 8, 1});
  RoundTrip<int32_t>({1, -2, 3, 1 << 30, 5, -6}, DLDataType{kDLInt, 32, 1});
  RoundTrip<int64_t>({1, -2, int64_t{1} << 40, 4, 5, -6}, DLDataType{kDLInt, 64, 1});
  RoundTrip<float>({1.5f, -2, 3, 4, 5, 6.25f}, DLDataType{kDLFloat, 32, 1});
  RoundTrip<double>({1e300, -2, 3, 4, 5, 6}, DLDataType{kDLFloat, 64, 1});
}

TEST(DLPack, ImportReadsAndWritesTheProducersMemory) {
  Producer p(kF32, {4}, sizeof(float));
  for (int i = 0; i < 4; ++i) p.data<float>()[i] = static_cast<float>(i);
  {
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_TRUE(ops::MulScalarInplace(t, 10).ok());
    absl::StatusOr<std::vector<float>> v = (t + 1.0f).ToVector<float>();
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, (std::vector<float>{1, 11, 21, 31}));
    EXPECT_EQ(p.data<float>()[3], 30.0f);  // written in place, not in a copy
    EXPECT_EQ(p.deleted.load(), 0);        // still referenced
  }
  EXPECT_EQ(DeletedAfterSync(p), 1);
}

TEST(DLPack, ExportedViewsPointAtTheirFirstElement) {
  Tensor base = FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {4, 3});
  absl::StatusOr<DLManagedTensor*> whole = ToDLPack(base);
  ASSERT_TRUE(whole.ok());
  const char* origin = static_cast<const char*>((*whole)->dl_tensor.data);

  absl::StatusOr<DLManagedTensor*> slice = ToDLPack(base.Slice(1, 3));
  ASSERT_TRUE(slice.ok()) << slice.status();
  const DLTensor& s = (*slice)->dl_tensor;
  EXPECT_EQ(static_cast<const char*>(s.data), origin + 3 * sizeof(float));
  EXPECT_EQ(s.byte_offset, 0u);
  ASSERT_EQ(s.ndim, 2);
  EXPECT_EQ(s.shape[0], 2);
  EXPECT_EQ(s.strides[0], 3);
  EXPECT_EQ(static_cast<const float*>(s.data)[0], 3.0f);
  EXPECT_EQ(static_cast<const float*>(s.data)[5], 8.0f);

  absl::StatusOr<DLManagedTensor*> reshaped = ToDLPack(base.Slice(2, 4).Reshape({3, 2}));
  ASSERT_TRUE(reshaped.ok()) << reshaped.status();
  const DLTensor& r = (*reshaped)->dl_tensor;
  EXPECT_EQ(static_cast<const char*>(r.data), origin + 6 * sizeof(float));
  EXPECT_EQ(r.shape[0], 3);
  EXPECT_EQ(r.shape[1], 2);
  EXPECT_EQ(r.strides[0], 2);
  EXPECT_EQ(r.strides[1], 1);

  // The views keep the storage alive after every eagervm handle is gone.
  base = Tensor();
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(static_cast<const float*>(r.data)[5], 11.0f);
  // A view re-imported reads the right elements.
  Tensor back = FromDLPack(*reshaped);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.ToVector<float>().value(), (std::vector<float>{6, 7, 8, 9, 10, 11}));
  (*whole)->deleter(*whole);
  (*slice)->deleter(*slice);
}

TEST(DLPack, ImportHonoursByteOffsetAndAcceptsCompactStrides) {
  Producer p(kF32, {2, 1, 2}, sizeof(float));
  p.bytes.resize(p.bytes.size() + 2 * sizeof(float));  // room for the offset
  p.managed.dl_tensor.data = p.bytes.data();
  const float vals[6] = {-1, -2, 1, 2, 3, 4};
  std::memcpy(p.bytes.data(), vals, sizeof(vals));
  p.managed.dl_tensor.byte_offset = 2 * sizeof(float);
  // Compact, with an arbitrary stride on the size-1 dimension (libtorch does that).
  int64_t strides[3] = {2, 99, 1};
  p.managed.dl_tensor.strides = strides;
  {
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t.ToVector<float>().value(), (std::vector<float>{1, 2, 3, 4}));
  }
  EXPECT_EQ(DeletedAfterSync(p), 1);
}

TEST(DLPack, EmptyTensorsRoundTripAndStillRunTheDeleter) {
  Producer p(kF32, {0, 3}, sizeof(float));
  p.managed.dl_tensor.data = nullptr;
  {
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t.numel(), 0);
    absl::StatusOr<DLManagedTensor*> m = ToDLPack(t);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ((*m)->dl_tensor.shape[0], 0);
    (*m)->deleter(*m);
  }
  EXPECT_EQ(DeletedAfterSync(p), 1);
}

TEST(DLPack, Uint8ImportsAsUInt8AndDLBoolAsBool) {
  Producer p(DLDataType{kDLUInt, 8, 1}, {3}, 1);
  p.bytes = {1, 0, static_cast<char>(200)};
  p.managed.dl_tensor.data = p.bytes.data();
  {
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t.dtype(), DType::kUInt8);
    EXPECT_EQ(t.ToVector<uint8_t>().value(), (std::vector<uint8_t>{1, 0, 200}));
  }
  EXPECT_EQ(DeletedAfterSync(p), 1);
  Producer b(DLDataType{6, 8, 1}, {3}, 1);  // kDLBool (DLPack 0.8 on)
  b.bytes = {1, 0, 1};
  b.managed.dl_tensor.data = b.bytes.data();
  {
    Tensor t = FromDLPack(&b.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t.dtype(), DType::kBool);
    EXPECT_EQ(t.ToVector<bool>().value(), (std::vector<bool>{true, false, true}));
  }
  EXPECT_EQ(DeletedAfterSync(b), 1);
}

// ---- the deleter and queued work ----

std::atomic<bool> g_gate_open{false};
Tensor g_captured;                   // exported from inside a kernel
std::atomic<int> g_inside_code{-1};  // the status code that export got there
std::atomic<bool> g_slow_done{false};

void RegisterTestOps() {
  static const bool once = [] {
    auto same = [](const std::vector<TensorMeta>& in,
                   const Attrs&) -> absl::StatusOr<std::vector<TensorMeta>> {
      return std::vector<TensorMeta>{in[0]};
    };
    // Copies its input after a pause: a slow reader of an imported tensor.
    EXPECT_TRUE(RegisterOp("dlpack_test.SlowCopy", same).ok());
    EXPECT_TRUE(RegisterKernel("dlpack_test.SlowCopy", DeviceType::kCPU, [](KernelContext& ctx) {
                  std::this_thread::sleep_for(200ms);
                  std::memcpy(ctx.raw_output(0), ctx.raw_input(0),
                              ctx.input_meta(0).shape.numel() * SizeOf(ctx.input_meta(0).dtype));
                  g_slow_done = true;
                  return absl::OkStatus();
                }).ok());
    // Holds up its stream until g_gate_open (at most 10 s, so a bug cannot hang).
    EXPECT_TRUE(RegisterOp("dlpack_test.Gate", same).ok());
    EXPECT_TRUE(RegisterKernel("dlpack_test.Gate", DeviceType::kCPU, [](KernelContext& ctx) {
                  for (int i = 0; i < 10000 && !g_gate_open.load(); ++i)
                    std::this_thread::sleep_for(1ms);
                  std::memcpy(ctx.raw_output(0), ctx.raw_input(0),
                              ctx.input_meta(0).shape.numel() * SizeOf(ctx.input_meta(0).dtype));
                  return absl::OkStatus();
                }).ok());
    EXPECT_TRUE(RegisterOp("dlpack_test.ExportInside", same).ok());
    EXPECT_TRUE(
        RegisterKernel("dlpack_test.ExportInside", DeviceType::kCPU, [](KernelContext& ctx) {
          absl::StatusOr<DLManagedTensor*> m = ToDLPack(g_captured);
          g_inside_code = static_cast<int>(m.status().code());
          if (m.ok()) (*m)->deleter(*m);
          std::memcpy(ctx.raw_output(0), ctx.raw_input(0), SizeOf(ctx.input_meta(0).dtype));
          return absl::OkStatus();
        }).ok());
    EXPECT_TRUE(RegisterOp("dlpack_test.Fails", same).ok());
    EXPECT_TRUE(RegisterKernel("dlpack_test.Fails", DeviceType::kCPU, [](KernelContext&) {
                  return absl::DataLossError("dlpack_test.Fails failed on purpose");
                }).ok());
    return true;
  }();
  (void)once;
}

TEST(DLPack, DeleterRunsOnceAfterTheLastQueuedUse) {
  RegisterTestOps();
  Producer p(kF32, {1024}, sizeof(float));
  for (int i = 0; i < 1024; ++i) p.data<float>()[i] = static_cast<float>(i);
  g_slow_done = false;
  p.kernel_done = &g_slow_done;
  Tensor out;
  {
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    absl::StatusOr<std::vector<Tensor>> r = ops::Call("dlpack_test.SlowCopy", {t});
    ASSERT_TRUE(r.ok()) << r.status();
    out = (*r)[0];
  }  // the last handle goes while the kernel still reads the memory
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(p.deleted.load(), 0);
  absl::StatusOr<std::vector<float>> v = out.ToVector<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)[1023], 1023.0f);
  EXPECT_EQ(DeletedAfterSync(p), 1);
  EXPECT_TRUE(p.deleted_after_kernel.load());
}

TEST(DLPack, DeleterWaitsForWorkQueuedBeforeTheDrop) {
  RegisterTestOps();
  g_gate_open = false;
  // Blocks the current CPU stream: nothing queued after it has run yet.
  absl::StatusOr<std::vector<Tensor>> gate =
      ops::Call("dlpack_test.Gate", {Full({1}, 0.0f, DType::kFloat32)});
  ASSERT_TRUE(gate.ok());
  Producer p(kF32, {4}, sizeof(float));
  {
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(ops::FillInplace(t, 7).ok());  // queued behind the gate
  }                                            // dropped before the write ran
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(p.deleted.load(), 0);
  EXPECT_EQ(p.data<float>()[0], 0.0f);
  g_gate_open = true;
  EXPECT_EQ(DeletedAfterSync(p), 1);
  EXPECT_EQ(p.data<float>()[3], 7.0f);  // the write ran, then the deleter
}

// ---- rejections: error tensors, and the caller keeps ownership ----

void ExpectRejected(Producer& p, const char* needle) {
  Tensor t = FromDLPack(&p.managed);
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find(needle), std::string_view::npos) << t.status();
  t = Tensor();
  EXPECT_EQ(DeletedAfterSync(p), 0);  // not taken over
}

// A CUDA import (here: an eagervm CUDA tensor exported and imported back)
// is released on a CPU stream's worker, never the scheduler thread (a slow
// deleter would stall every CUDA stream there), and only after the device
// finished the work queued on it. Needs a GPU.
std::atomic<int> g_cuda_deleter_calls{0};
std::atomic<bool> g_cuda_deleter_on_scheduler{false};
void (*g_exported_deleter)(DLManagedTensor*) = nullptr;

void WrappedCudaDeleter(DLManagedTensor* m) {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  if (std::string(name) == "evm-scheduler") g_cuda_deleter_on_scheduler = true;
  g_cuda_deleter_calls.fetch_add(1);
  g_exported_deleter(m);
}

TEST(DLPack, ACudaImportIsReleasedOffTheSchedulerThread) {
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "needs a CUDA GPU";
  const Device gpu = Device::Cuda(0);
  Tensor g = Full({1 << 16}, 2.0f, DType::kFloat32, gpu);
  absl::StatusOr<DLManagedTensor*> m = ToDLPack(g);
  ASSERT_TRUE(m.ok()) << m.status();
  g = Tensor();
  g_exported_deleter = (*m)->deleter;
  (*m)->deleter = WrappedCudaDeleter;
  Tensor sum;
  {
    Tensor x = FromDLPack(*m);
    ASSERT_TRUE(x.ok()) << x.status();
    sum = ops::Sum(ops::Mul(x, x));
  }  // released while the product may still run
  absl::StatusOr<float> v = sum.Item<float>();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 4.0f * (1 << 16));
  ASSERT_TRUE(Sync().ok());
  EXPECT_EQ(g_cuda_deleter_calls.load(), 1);
  EXPECT_FALSE(g_cuda_deleter_on_scheduler.load());
}

TEST(DLPack, RejectsNull) {
  Tensor t = FromDLPack(nullptr);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("null"), std::string_view::npos) << t.status();
}

TEST(DLPack, RejectsUnsupportedDTypes) {
  for (DLDataType dt :
       {DLDataType{kDLFloat, 8, 1}, DLDataType{kDLBfloat, 32, 1}, DLDataType{kDLUInt, 32, 1},
        DLDataType{kDLInt, 8, 1}, DLDataType{kDLComplex, 64, 1}, DLDataType{kDLFloat, 32, 4}}) {
    SCOPED_TRACE(::testing::Message() << int{dt.code} << "/" << int{dt.bits} << "x" << dt.lanes);
    Producer p(dt, {2}, 8);
    ExpectRejected(p, "unsupported dtype");
  }
}

// Non-compact strides import as a strided view over the producer's memory
// (no copy); negative strides are rejected.
TEST(DLPack, ImportsNonCompactStridesAsAStridedView) {
  {
    Producer p(kF32, {2, 2}, sizeof(float));
    for (int i = 0; i < 4; ++i) p.data<float>()[i] = static_cast<float>(i + 1);
    int64_t transposed[2] = {1, 2};
    p.managed.dl_tensor.strides = transposed;
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_FALSE(t.is_contiguous());
    EXPECT_EQ(*t.ToVector<float>(), (std::vector<float>{1, 3, 2, 4}));
    ASSERT_TRUE(ops::AddInplace(t, FromVector<float>({10, 20, 30, 40}, {2, 2})).ok());
    ASSERT_TRUE(t.Wait().ok());
    EXPECT_EQ(p.data<float>()[1], 32.0f);  // element [1, 0] of the view
    t = Tensor();
    EXPECT_EQ(DeletedAfterSync(p), 1);
  }
  {
    // Padded rows: [2, 2] with row stride 4 spans 6 floats of an 8-float buffer.
    Producer p(kF32, {2, 4}, sizeof(float));
    for (int i = 0; i < 8; ++i) p.data<float>()[i] = static_cast<float>(i);
    p.shape = {2, 2};
    p.managed.dl_tensor.shape = p.shape.data();
    int64_t padded[2] = {4, 1};
    p.managed.dl_tensor.strides = padded;
    Tensor t = FromDLPack(&p.managed);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(*t.ToVector<float>(), (std::vector<float>{0, 1, 4, 5}));
    t = Tensor();
    EXPECT_EQ(DeletedAfterSync(p), 1);  // before p goes
  }
  Producer n(kF32, {2, 2}, sizeof(float));
  int64_t negative[2] = {-2, 1};
  n.managed.dl_tensor.strides = negative;
  ExpectRejected(n, "negative");
}

// A strided view exports its own strides, pointing at its first element.
TEST(DLPack, ExportsAStridedViewWithItsStrides) {
  Tensor t = FromVector<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  absl::StatusOr<DLManagedTensor*> m = ToDLPack(t.Slice(1, 1, 3).T());
  ASSERT_TRUE(m.ok()) << m.status();
  const DLTensor& dl = (*m)->dl_tensor;
  ASSERT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.shape[0], 2);
  EXPECT_EQ(dl.shape[1], 2);
  EXPECT_EQ(dl.strides[0], 1);
  EXPECT_EQ(dl.strides[1], 3);
  const float* f = static_cast<const float*>(dl.data);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1 * dl.strides[0] + 1 * dl.strides[1]], 5.0f);  // view [1][1] = t[1][2]
  (*m)->deleter(*m);
}

TEST(DLPack, RejectsBadShapes) {
  Producer deep(kF32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, sizeof(float));
  ExpectRejected(deep, "ndim 9");
  Producer negative(kF32, {2, -1}, sizeof(float));
  ExpectRejected(negative, "dimension 1 is -1");
  Producer no_data(kF32, {2}, sizeof(float));
  no_data.managed.dl_tensor.data = nullptr;
  ExpectRejected(no_data, "data is null");
}

// A producer's fields are untrusted (issue 28): counts that overflow would let
// a later op read far out of bounds; a misaligned address is UB in a kernel.
TEST(DLPack, RejectsOverflowingCountsAndMisalignedData) {
  Producer p(kF32, {2}, sizeof(float));
  int64_t square[2] = {int64_t{1} << 40, int64_t{1} << 40};
  p.managed.dl_tensor.shape = square;
  p.managed.dl_tensor.ndim = 2;
  ExpectRejected(p, "element count overflows");
  int64_t long_one[1] = {int64_t{1} << 62};
  p.managed.dl_tensor.shape = long_one;
  p.managed.dl_tensor.ndim = 1;
  ExpectRejected(p, "element count overflows");
  Producer q(kF32, {4}, sizeof(float));
  q.managed.dl_tensor.byte_offset = 1;
  ExpectRejected(q, "not aligned to 4 bytes");
  q.managed.dl_tensor.byte_offset = 0;
  q.managed.dl_tensor.data = q.bytes.data() + 2;
  q.managed.dl_tensor.shape[0] = 3;
  ExpectRejected(q, "not aligned to 4 bytes");
}

TEST(DLPack, RejectsUnsupportedDevices) {
  Producer p(kF32, {2}, sizeof(float));
  p.managed.dl_tensor.device = DLDevice{kDLOpenCL, 0};
  ExpectRejected(p, "device type 4");
  p.managed.dl_tensor.device = DLDevice{kDLCUDAHost, 0};
  ExpectRejected(p, "device type 3");
  p.managed.dl_tensor.device = DLDevice{kDLCUDA, 0};
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "a GPU is present: kDLCUDA is accepted";
  Tensor t = FromDLPack(&p.managed);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition) << t.status();
  EXPECT_NE(t.status().message().find("FromDLPack: device cuda:0 is not available"),
            std::string_view::npos)
      << t.status();
  t = Tensor();
  EXPECT_EQ(DeletedAfterSync(p), 0);
}

// ---- export errors ----

TEST(DLPack, ExportReturnsTheTensorsError) {
  RegisterTestOps();
  absl::StatusOr<DLManagedTensor*> m =
      ToDLPack(Tensor::Error(absl::NotFoundError("no such thing")));
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ToDLPack(Tensor()).status().code(), Tensor().Wait().code());  // as Wait()

  absl::StatusOr<std::vector<Tensor>> failed =
      ops::Call("dlpack_test.Fails", {Full({2}, 1.0f, DType::kFloat32)});
  ASSERT_TRUE(failed.ok());
  m = ToDLPack((*failed)[0]);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kDataLoss) << m.status();
  EXPECT_TRUE(Sync().ok());  // reported by ToDLPack already
}

TEST(DLPack, ExportOnAVmThreadIsFailedPrecondition) {
  RegisterTestOps();
  g_captured = Full({2}, 1.0f, DType::kFloat32);
  g_inside_code = -1;
  absl::StatusOr<std::vector<Tensor>> r =
      ops::Call("dlpack_test.ExportInside", {Full({1}, 0.0f, DType::kFloat32)});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE((*r)[0].Wait().ok());
  EXPECT_EQ(g_inside_code.load(), static_cast<int>(absl::StatusCode::kFailedPrecondition));
  g_captured = Tensor();
}

TEST(DLPack, ExportDeleterMayRunOnAnotherThread) {
  Tensor t = FromVector<int64_t>({1, 2, 3}, {3});
  absl::StatusOr<DLManagedTensor*> m = ToDLPack(t);
  ASSERT_TRUE(m.ok());
  t = Tensor();  // the export alone keeps the storage
  std::thread consumer([m = *m] {
    EXPECT_EQ(static_cast<const int64_t*>(m->dl_tensor.data)[2], 3);
    m->deleter(m);
  });
  consumer.join();
  EXPECT_TRUE(Sync().ok());
}

}  // namespace
}  // namespace eagervm
