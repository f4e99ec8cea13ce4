#include "vm/api/host_access.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "base/str_cat.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/lifecycle/donate.h"
#include "vm/lifecycle/reply_slot.h"
#include "vm/lifecycle/vm_impl.h"
#include "vm/tensor_impl.h"

namespace eagervm::internal {

namespace {

// A strided view (Tensor::Permute, T, Expand, Slice on an inner axis): the
// bytes it spans are read, then its elements gathered on this thread.
absl::Status ReadStridedToHost(const Tensor& t, void* dst, size_t bytes, const char* what) {
  const TensorImpl& impl = *internal::ImplOf(t);
  const Shape& shape = impl.meta.shape;
  const int rank = static_cast<int>(shape.dims().size());
  int64_t span = 1;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 0) span = 0;
  }
  for (int d = 0; d < rank && span > 0; ++d) span += (shape[d] - 1) * impl.strides[d];
  auto span_impl = std::make_shared<TensorImpl>(impl);
  span_impl->strides.clear();
  span_impl->meta.shape = Shape{span};
  const Tensor span_tensor = WrapImpl(std::move(span_impl));
  if (dst == nullptr) return ReadToHost(span_tensor, nullptr, 0, what);
  const size_t elem = SizeOf(impl.meta.dtype);
  std::vector<char> buf;
  try {
    buf.resize(static_cast<size_t>(span) * elem);
  } catch (const std::exception&) {
    return absl::ResourceExhaustedError(
        base::Cat(what, ": cannot allocate ", span * static_cast<int64_t>(elem),
                  " host bytes to read a strided view of ", shape.ToString()));
  }
  absl::Status s = ReadToHost(span_tensor, buf.data(), buf.size(), what);
  if (!s.ok()) return s;
  const int64_t n = std::min<int64_t>(shape.numel(), static_cast<int64_t>(bytes / elem));
  int64_t index[Shape::kMaxDims] = {};
  int64_t off = 0;
  char* out = static_cast<char*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out + static_cast<size_t>(i) * elem, buf.data() + static_cast<size_t>(off) * elem,
                elem);
    for (int d = rank - 1; d >= 0; --d) {
      off += impl.strides[d];
      if (++index[d] < shape[d]) break;
      off -= impl.strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadToHost(const Tensor& t, void* dst, size_t bytes, const char* what) {
  absl::Status s = CheckTensor(t, what, "self");
  if (!s.ok()) return s;
  if (!internal::ImplOf(t)->strides.empty()) [[unlikely]]
    return ReadStridedToHost(t, dst, bytes, what);
  s = vm::CheckMayBlock(what);
  if (!s.ok()) return s;
  vm::VmImpl& vm = vm::ProcessVm();
  vm.NoteCallAfterHandoff();  // reading right after a large op's handoff: nothing overlapped
  const size_t copied = dst != nullptr ? std::min(bytes, t.nbytes()) : 0;
  // Every write of the storage has run: no instruction is needed at all (a
  // capture records the read instead).
  bool busy = false;
  if (vm.drained()) [[unlikely]] {  // after Shutdown(): the final bytes, no instruction
    const internal::TensorImpl& impl = *internal::ImplOf(t);
    return vm.ReadAfterShutdown(*impl.blob(), t.device(), static_cast<size_t>(impl.offset), dst,
                                copied, what);
  }
  if (vm::CurrentRecorder() == nullptr) {
    const internal::TensorImpl& impl = *internal::ImplOf(t);
    if (std::optional<absl::Status> read =
            vm.ReadIfFinal(*impl.blob(), static_cast<size_t>(impl.offset), dst, copied, &busy)) {
      return *read;
    }
  }
  vm::ReplySlotHolder holder(vm.options().hang_timeout_ms > 0);
  vm::ReplySlot* h = holder.get();
  // An idle VM (not found busy just now): the read runs on this thread, with
  // no wake-up either way.
  vm::DonateScope donate(t.device().is_cpu() && !busy ? vm::DonateMode::kShort
                                                      : vm::DonateMode::kNone);
  // No bytes when nothing is copied out (Wait): a device tensor then needs no
  // staging copy, only its completion.
  s = vm::PhysicalRun([&](vm::Builder* b) {
    return b->SyncRead(
        t, dst != nullptr ? t.nbytes() : 0,
        [h, keep = holder.keep(), dst, bytes](const vm::ErrorPtr& e, void* data, size_t n) {
          if (!h->Claim()) return;  // the reader gave up (hang timeout): dst may be gone
          if (e != nullptr) {
            h->error = e;
          } else if (dst != nullptr && n > 0) {
            std::memcpy(dst, data, n < bytes ? n : bytes);
          }
          h->Signal();
        },
        what);
  });
  if (!s.ok()) return s;
  s = h->Await(vm, what);
  if (!s.ok()) return s;
  vm.SettleAfterWait();  // the read has run: release it, so the next small op is donated
  if (h->error != nullptr) {
    h->error->MarkReported();
    return h->error->status;
  }
  return absl::OkStatus();
}

}  // namespace eagervm::internal
