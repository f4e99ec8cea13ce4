// Must not compile: profiler -> vm is forbidden (the VM hooks live in
// vm/diagnostics/trace_hooks.h).
#include "vm/lifecycle/vm_impl.h"
