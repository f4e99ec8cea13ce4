// Must compile as device/cpu: its allowed arrows (vm, memory, base).
#include "device/cpu/cpu_stream_policy.h"
#include "memory/caching_allocator.h"
#include "vm/vm_context.h"
