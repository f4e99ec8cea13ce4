// Must not compile: graph -> ops is forbidden (graph records kernel calls).
#include "ops/op_def.h"
