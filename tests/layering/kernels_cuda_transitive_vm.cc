// Must not compile: kernels/cuda sees device/cuda, but only the headers that
// stay within its own view. cuda_stream_policy.h reaches memory/ and vm/
// (through device_memory.h and vm/streams/stream_policy.h): kernels -> vm is forbidden.
#include "device/cuda/cuda_stream_policy.h"
