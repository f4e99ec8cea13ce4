// Must not compile: graph -> device backends is forbidden (it reaches devices
// through vm::StreamPolicy).
#include "device/cpu/cpu_stream_policy.h"
