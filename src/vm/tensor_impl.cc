#include "vm/tensor_impl.h"

#include "eagervm/virtual_machine.h"
#include "vm/instruction_pool.h"
#include "vm/release_tensor_policy.h"
#include "vm/vm_impl.h"

namespace eagervm::internal {

StorageHandle::~StorageHandle() {
  vm::VmStream* producer = blob_->producer();
  if (producer == nullptr) return;  // never written: nothing to free in stream order
  vm::VmImpl* vm = VirtualMachine::Get().impl();
  if (vm->shut_down()) return;  // the BlobObject's destructor frees the memory
  vm::Instruction* instr = vm::InstructionPool::Acquire();
  instr->Emplace<vm::ReleaseTensorPolicy>(std::move(blob_));
  instr->set_stream(producer);
  vm::InstructionList list;
  list.PushBack(instr);
  (void)vm->Receive(&list, /*is_release=*/true);
}

Tensor NewTensor(const TensorMeta& meta) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = meta;
  const size_t bytes = static_cast<size_t>(meta.shape.numel()) * SizeOf(meta.dtype);
  impl->storage = std::make_shared<StorageHandle>(std::make_shared<vm::BlobObject>(bytes, meta.device));
  return Tensor(std::move(impl));
}

}  // namespace eagervm::internal
