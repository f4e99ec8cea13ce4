// DLPack after VirtualMachine::Shutdown() (process-wide, hence its own file):
// an export's deleter is still safe, on any thread; an import dropped after
// shutdown runs its deleter on the dropping thread; new imports are rejected
// and leave the DLManagedTensor to the caller.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "eagervm/dlpack.h"
#include "eagervm/eagervm.h"

namespace eagervm {
namespace {

std::atomic<int> g_deleted{0};

DLManagedTensor MakeProducer(std::vector<float>& data, int64_t* shape) {
  DLManagedTensor m = {};
  m.dl_tensor.data = data.data();
  m.dl_tensor.device = DLDevice{kDLCPU, 0};
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
  m.dl_tensor.shape = shape;
  m.deleter = [](DLManagedTensor*) { g_deleted.fetch_add(1); };
  return m;
}

TEST(DLPackShutdown, DeletersAreSafeAfterShutdown) {
  Tensor a = FromVector<float>({1, 2, 3}, {3});
  Tensor b = a + 1.0f;
  Tensor kept = a * 2.0f;
  absl::StatusOr<DLManagedTensor*> ea = ToDLPack(a);
  absl::StatusOr<DLManagedTensor*> eb = ToDLPack(b.Slice(1, 3));
  ASSERT_TRUE(ea.ok() && eb.ok());
  a = Tensor();
  b = Tensor();

  std::vector<float> data = {5, 6};
  int64_t shape[1] = {2};
  DLManagedTensor producer = MakeProducer(data, shape);
  Tensor imported = FromDLPack(&producer);
  ASSERT_TRUE(imported.ok());
  ASSERT_TRUE(ops::AddInplace(imported, imported).ok());

  ASSERT_TRUE(VirtualMachine::Get().Shutdown().ok());
  EXPECT_EQ(data[1], 12.0f);       // the queued write drained
  EXPECT_EQ(g_deleted.load(), 0);  // still referenced

  // Exported memory stays readable until the deleter, which any thread may call.
  EXPECT_EQ(static_cast<const float*>((*ea)->dl_tensor.data)[2], 3.0f);
  EXPECT_EQ(static_cast<const float*>((*eb)->dl_tensor.data)[0], 3.0f);
  (*ea)->deleter(*ea);
  std::thread other([m = *eb] { m->deleter(m); });
  other.join();

  // After shutdown the last drop runs the import's deleter before it returns.
  imported = Tensor();
  EXPECT_EQ(g_deleted.load(), 1);

  // New imports are rejected; the caller keeps ownership.
  DLManagedTensor late = MakeProducer(data, shape);
  Tensor t = FromDLPack(&late);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition) << t.status();
  t = Tensor();
  EXPECT_EQ(g_deleted.load(), 1);
  // A CPU tensor computed before Shutdown holds its final bytes and is
  // readable without the VM (issue 28), so it can still be exported; its
  // deleter (the last drop) runs after shutdown, safely.
  absl::StatusOr<DLManagedTensor*> late_export = ToDLPack(kept);
  ASSERT_TRUE(late_export.ok()) << late_export.status();
  (*late_export)->deleter(*late_export);
}

}  // namespace
}  // namespace eagervm
