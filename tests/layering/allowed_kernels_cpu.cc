// Must compile as kernels/cpu: its allowed arrows (ops, base), so that the
// layering test cannot pass merely because every probe fails.
#include "base/str_cat.h"
#include "eagervm/eagervm.h"
#include "kernels/cpu/kernel_util.h"
#include "ops/op_registry.h"
