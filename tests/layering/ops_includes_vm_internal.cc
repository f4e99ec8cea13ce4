// Must not compile: ops sees only vm's exported headers (vm/intake.h and the
// three it names), even after one of them pulled this header in.
#include "vm/intake.h"
#include "vm/engine/engine.h"
