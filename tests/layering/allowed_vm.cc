// Must compile as vm: its allowed arrows (base, memory, profiler).
#include "base/notifier.h"
#include "memory/allocator.h"
#include "profiler/tracer.h"
#include "vm/lifecycle/vm_impl.h"
