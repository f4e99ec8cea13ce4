// Must not compile: kernels -> vm is forbidden (a kernel sees a KernelContext).
#include "vm/lifecycle/vm_impl.h"
