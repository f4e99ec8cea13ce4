// The attr names under which a strided input's view travels to its kernel
// (ops/strided.h): the view's shape and strides, as int64 lists, while the
// operand itself is the span of storage the view reaches. Here, not in ops,
// because the VM and graph name a refused view's own shape in errors
// (vm/kernel_args.h InputShapeText) and the CPU kernels read the views.
#ifndef EAGERVM_BASE_VIEW_ATTRS_H_
#define EAGERVM_BASE_VIEW_ATTRS_H_

#include <string>

namespace eagervm::internal {

// For input `input` < 64. Any thread; the strings live for the process.
const std::string& StridedShapeAttr(int input);
const std::string& StridedStridesAttr(int input);

}  // namespace eagervm::internal

#endif  // EAGERVM_BASE_VIEW_ATTRS_H_
