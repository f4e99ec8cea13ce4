// Must not compile: vm -> ops is forbidden (the VM knows kernels, not ops).
#include "ops/op_def.h"
