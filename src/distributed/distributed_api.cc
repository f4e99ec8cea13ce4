// The process-level half of eagervm/distributed.h.
#include "distributed/process_group.h"
#include "eagervm/distributed.h"

namespace eagervm {

absl::Status InitDistributed() { return dist::ProcessGroup::Get().Init(); }
absl::Status FinalizeDistributed() { return dist::ProcessGroup::Get().Finalize(); }
bool IsDistributed() { return dist::ProcessGroup::Get().active(); }
int Rank() { return dist::ProcessGroup::Get().rank(); }
int WorldSize() { return dist::ProcessGroup::Get().size(); }

}  // namespace eagervm
