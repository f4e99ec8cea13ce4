// Must compile as ops: vm's exported headers, which themselves include
// unexported ones.
#include "vm/intake.h"
#include "vm/kernel_args.h"
#include "vm/kernel_call.h"
#include "vm/tensor_impl.h"
