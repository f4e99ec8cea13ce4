// Must not compile: vm -> device backends is forbidden (src/runtime/ wires them).
#include "device/cpu/cpu_stream_policy.h"
