// Must not compile: profiler -> vm is forbidden (the VM hooks live in vm/trace_hooks.h).
#include "vm/vm_impl.h"
