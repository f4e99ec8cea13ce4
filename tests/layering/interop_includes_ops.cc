// Must not compile: interop -> ops is forbidden (it wraps storages through vm).
#include "ops/op_def.h"
