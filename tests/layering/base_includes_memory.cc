// Must not compile: base includes nothing above it.
#include "memory/allocator.h"
