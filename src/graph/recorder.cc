#include "graph/recorder.h"

#include <cstdint>
#include <string_view>

#include "base/str_cat.h"
#include "graph/escaped.h"
#include "vm/intake/physical_run.h"
#include "vm/intake/process_vm.h"
#include "vm/streams/comm_stream.h"
#include "vm/tensor_impl.h"

namespace eagervm::graph {

Recorder::Recorder(std::optional<Stream> graph_stream) : graph_stream_(graph_stream) {
  ambient_.push_back(Stream::Current(Device::Cpu()));
  for (int i = 0; i < 16; ++i) ambient_.push_back(Stream::Current(Device::Cuda(i)));
}

Stream Recorder::PlanStream(Stream s) const {
  for (const Stream& a : ambient_) {
    if (a != s) continue;
    if (graph_stream_.has_value() && graph_stream_->device() == s.device()) return *graph_stream_;
    return Stream(s.device(), vm::kGraphStreamIndex);
  }
  return s;  // fn chose it with a StreamScope of its own
}

std::vector<Tensor> Recorder::MakeInputs(const std::vector<TensorMeta>& metas) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < metas.size(); ++i) {
    Tensor t = internal::NewTensor(metas[i]);  // NoteNewStorage keeps its storage
    // Ops stage reads that may overlap it once bound (ops/overlap.h).
    internal::ImplOf(t)->blob()->set_capture_role(vm::BlobObject::CaptureRole::kInput);
    buffer_of_[internal::ImplOf(t)->blob()] = static_cast<int>(program_.buffers.size());
    program_.buffers.push_back(Buffer{BufferKind::kInput, static_cast<int>(i),
                                      internal::ImplOf(t)->blob()->nbytes(), metas[i].device});
    inputs.push_back(std::move(t));
  }
  program_.input_metas = metas;
  return inputs;
}

int Recorder::BufferOf(const Tensor& t) {
  const vm::BlobObject* blob = internal::ImplOf(t)->blob();
  auto [it, inserted] = buffer_of_.try_emplace(blob, static_cast<int>(program_.buffers.size()));
  if (!inserted) return it->second;
  Buffer b;
  b.nbytes = blob->nbytes();
  b.device = blob->device();
  if (made_here_.contains(blob)) {
    b.kind = BufferKind::kIntermediate;
  } else {
    if (IsEscaped(blob)) {
      Fail(absl::InvalidArgumentError(base::Cat(
          "Graph::Capture: node ", program_.nodes.size(),
          " uses a symbolic tensor that escaped an earlier Graph::Capture (it has no value; "
          "see that capture's error)")));
    }
    b.kind = BufferKind::kParameter;
    b.slot = static_cast<int>(program_.parameters.size());
    program_.parameters.push_back(internal::ImplOf(t)->storage);  // keeps the user's storage alive
  }
  program_.buffers.push_back(b);
  return it->second;
}

Value Recorder::ValueOf(const Tensor& t) {
  return Value{BufferOf(t), t.meta(), internal::ImplOf(t)->offset};
}

absl::Status Recorder::Refuse(const char* what, const char* why) {
  absl::Status s = absl::FailedPreconditionError(base::Cat(
      "Graph::Capture: ", what, " cannot be captured (node ", program_.nodes.size(), "): ", why));
  Fail(s);
  return s;
}

absl::Status Recorder::CallKernel(const vm::KernelCall& call, const vm::KernelCallArgs& a,
                                  Stream stream) {
  absl::StatusOr<vm::VmStream*> vs = vm::ResolveStream(PlanStream(stream), call.name);
  if (!vs.ok()) return vs.status();
  if (a.scalars.size() > internal::KernelArgs::kMaxScalars) {
    return absl::InternalError(base::Cat(call.name, ": too many scalar arguments"));
  }
  Node n;
  n.call = call;
  n.stream = *vs;
  if (a.attrs != nullptr) n.attrs = *a.attrs;
  n.num_scalars = static_cast<int>(a.scalars.size());
  for (size_t i = 0; i < a.scalars.size(); ++i) n.scalars[i] = a.scalars[i];
  // A read of bytes nothing wrote (an Empty tensor, or one written only
  // through a view) is not an error here: it fails at run time, as eagerly
  // (the plan's Coverage pass finds it).
  for (const Tensor* in : a.inputs) n.inputs.push_back(ValueOf(*in));
  for (const Tensor* out : a.outputs) {
    made_by_.try_emplace(internal::ImplOf(*out)->blob(), call.name, program_.nodes.size());
    n.outputs.push_back(ValueOf(*out));
  }
  program_.nodes.push_back(std::move(n));
  return absl::OkStatus();
}

absl::Status Recorder::HostWrite(const Tensor& t, vm::BlobCallback cb, const char* what) {
  // FromVector inside fn: a host write into a storage made here, replayed as
  // a node (a constant, hoisted out of the runs).
  if (made_here_.contains(internal::ImplOf(t)->blob())) {
    absl::StatusOr<vm::VmStream*> vs =
        vm::ResolveStream(PlanStream(Stream::Current(t.device())), what);
    if (!vs.ok()) return vs.status();
    Node n;
    n.call.name = "FromVector";
    n.call.pure = true;  // writes its own fresh storage from a captured vector
    n.host_write = std::move(cb);
    n.stream = *vs;
    made_by_.try_emplace(internal::ImplOf(t)->blob(), "FromVector", program_.nodes.size());
    n.outputs.push_back(ValueOf(t));
    program_.nodes.push_back(std::move(n));
    return absl::OkStatus();
  }
  return Refuse(what,
                "a host callback on a value that does not exist yet; call it outside the "
                "captured function, on Run's inputs or outputs");
}

absl::Status Recorder::AccessBlob(const Tensor& t, vm::BlobCallback cb, bool write,
                                  const char* what) {
  return Refuse(what,
                "a host callback on a value that does not exist yet; call it outside the "
                "captured function, on Run's inputs or outputs");
}

absl::Status Recorder::SyncRead(const Tensor& t, size_t bytes, vm::BlobCallback cb,
                                const char* what) {
  // ToVector reads through CopyToHost: name both, the user called one of them.
  const bool copy = std::string_view(what) == "CopyToHost";
  return Refuse(copy ? "ToVector/CopyToHost" : what,
                "it reads a value that does not exist during capture; read Run's outputs "
                "instead");
}

absl::Status Recorder::AddBarrier(std::function<void()> cb, const char* what) {
  // Sync() is a barrier: name both, the user called one of them.
  const bool barrier = std::string_view(what) == "Barrier";
  return Refuse(barrier ? "Sync()/Barrier" : what,
                "a graph has no host synchronisation inside it; Sync after Run instead");
}

absl::Status Recorder::CopyAcrossDevices(const Tensor& dst, const Tensor& src, const char* op) {
  return Refuse(op,
                "a copy between devices; a graph runs on one device (copy its inputs "
                "before Run, its outputs after)");
}

absl::Status Recorder::Launch(std::shared_ptr<vm::LaunchTarget> target, int part,
                              vm::VmStream* stream) {
  return Refuse("Graph::Run", "a graph cannot be run inside another graph's capture");
}

void Recorder::NoteNewStorage(const std::shared_ptr<vm::BlobObject>& blob) {
  blob->set_capture_role(vm::BlobObject::CaptureRole::kIntermediate);
  made_here_.emplace(blob.get(), blob);
}

absl::Status Recorder::ReleaseBlob(std::shared_ptr<vm::BlobObject> blob) {
  if (made_here_.contains(blob.get())) return absl::OkStatus();  // the plan owns its lifetime
  // A real tensor dropped inside fn and not used by it: release it eagerly.
  vm::ScopedRecorder eager(nullptr);
  return vm::PhysicalRun([&](vm::Builder* b) { return b->ReleaseBlob(std::move(blob)); });
}

absl::Status Recorder::SetOutputs(const std::vector<Tensor>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!t.defined()) {
      return absl::InvalidArgumentError(
          base::Cat("Graph::Capture: output ", i, " is an undefined tensor"));
    }
    if (!t.ok()) return t.status();
    program_.outputs.push_back(ValueOf(t));
  }
  return absl::OkStatus();
}

}  // namespace eagervm::graph

namespace eagervm::graph {

absl::Status Recorder::CheckNoEscapes() {
  absl::Status first;
  // The error names the escape made first (the lowest node), so the same
  // program always gives the same message whatever the hash order.
  size_t first_node = SIZE_MAX;
  for (const auto& [raw, blob] : made_here_) {
    if (blob.use_count() <= 1) continue;  // only made_here_ holds it: no tensor refers to it
    std::string what;
    size_t node = SIZE_MAX - 1;
    auto input = buffer_of_.find(raw);
    if (auto it = made_by_.find(raw); it != made_by_.end()) {
      node = it->second.second;
      what = base::Cat("the result of ", it->second.first, " (node ", it->second.second,
                       " of the capture)");
    } else if (input != buffer_of_.end() &&
               program_.buffers[input->second].kind == BufferKind::kInput) {
      what = base::Cat("symbolic input ", program_.buffers[input->second].slot);
    } else {
      what = "a tensor made inside the captured function";
    }
    absl::Status s = absl::InvalidArgumentError(
        base::Cat("Graph::Capture: ", what,
                  " is still referenced after the captured function returned (kept in a captured "
                  "variable or a global, e.g. `w = w - lr * g`). It is symbolic: it has no value "
                  "outside the capture. To change a parameter, update a parameter in place: "
                  "AddInplace/CopyInto/MulScalarInplace (w -= lr * g is AddInplace(w, MulScalar(g, "
                  "-lr))), or return it as an output"));
    MarkEscaped(blob, s);
    if (node < first_node) {
      first_node = node;
      first = s;
    }
  }
  return first;
}

}  // namespace eagervm::graph
