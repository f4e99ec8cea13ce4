#include "device/cpu/cpu_stream_policy.h"

#include "vm/engine/instruction.h"

namespace eagervm::device {

void CpuStreamPolicy::Run(vm::VmStream* stream, vm::Instruction* instr) {
  instr->policy()->Compute(stream);
  instr->MarkDone();
}

bool CpuStreamPolicy::QueryDone(const vm::Instruction* instr) const { return instr->done(); }

}  // namespace eagervm::device
