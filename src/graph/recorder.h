// Recorder: the builder of graph capture. Graph::Capture installs one on its
// thread (vm::ScopedRecorder); every op called inside the captured function
// then reaches it through vm::PhysicalRun, like eager ops reach the VM, and
// becomes a node of a Program instead of an instruction. What cannot be
// captured (a host read, a barrier, a copy between devices, a launch) is an
// error naming the node, and the first error is kept: Capture fails even if
// the function ignored it.
#ifndef EAGERVM_GRAPH_RECORDER_H_
#define EAGERVM_GRAPH_RECORDER_H_

#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "graph/program.h"
#include "vm/intake/builder.h"

namespace eagervm::graph {

class Recorder final : public vm::Builder {
 public:
  // Ops recorded on the stream that was current for their device when
  // Capture began go to `graph_stream` (its device) or the device's graph
  // stream (vm::kGraphStreamIndex); ops on other streams keep theirs.
  explicit Recorder(std::optional<Stream> graph_stream);
  // The symbolic tensors fn receives, one per input meta.
  std::vector<Tensor> MakeInputs(const std::vector<TensorMeta>& metas);
  // Resolves fn's results into program outputs; then the program is complete.
  absl::Status SetOutputs(const std::vector<Tensor>& outputs);
  // After fn and every tensor Capture held are gone: InvalidArgument if a
  // tensor made during the capture is still referenced (it escaped fn),
  // naming the op that made it; such storages are marked (graph/escaped.h).
  absl::Status CheckNoEscapes();

  const absl::Status& error() const { return error_; }
  void Fail(absl::Status s) {
    if (error_.ok()) error_ = std::move(s);
  }
  Program& program() { return program_; }

  absl::Status CallKernel(const vm::KernelCall& call, const vm::KernelCallArgs& args,
                          Stream stream) override;
  absl::Status CopyAcrossDevices(const Tensor& dst, const Tensor& src, const char* op) override;
  absl::Status SyncRead(const Tensor& t, size_t bytes, vm::BlobCallback cb,
                        const char* what) override;
  absl::Status ReleaseBlob(std::shared_ptr<vm::BlobObject> blob) override;
  absl::Status HostWrite(const Tensor& t, vm::BlobCallback cb, const char* what) override;
  absl::Status AccessBlob(const Tensor& t, vm::BlobCallback cb, bool write,
                          const char* what) override;
  absl::Status AddBarrier(std::function<void()> cb, const char* what) override;
  absl::Status Launch(std::shared_ptr<vm::LaunchTarget> target, int part,
                      vm::VmStream* stream) override;
  void NoteNewStorage(const std::shared_ptr<vm::BlobObject>& blob) override;
  void NoteRejection(const absl::Status& status) override { Fail(status); }
  size_t Mark() override { return program_.nodes.size(); }
  void Rollback(size_t mark) override { program_.nodes.resize(mark); }

 private:
  // The value `t` is inside the program; a storage first seen here is a
  // parameter unless it was made during the capture.
  Value ValueOf(const Tensor& t);
  Stream PlanStream(Stream s) const;
  int BufferOf(const Tensor& t);
  // The error of something that cannot be captured, kept as the first error.
  absl::Status Refuse(const char* what, const char* why);

  Program program_;
  absl::flat_hash_map<const vm::BlobObject*, int> buffer_of_;
  // Storages made during the capture (kept alive, so an address is never
  // reused for another storage while we look at it).
  absl::flat_hash_map<const vm::BlobObject*, std::shared_ptr<vm::BlobObject>> made_here_;
  // The op (and node index) that first wrote each storage made here.
  absl::flat_hash_map<const vm::BlobObject*, std::pair<const char*, size_t>> made_by_;
  absl::Status error_;
  std::optional<Stream> graph_stream_;
  std::vector<Stream> ambient_;  // the current streams when Capture began, by device
};

}  // namespace eagervm::graph

#endif  // EAGERVM_GRAPH_RECORDER_H_
