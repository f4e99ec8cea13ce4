// Must not compile: ops -> device backends is forbidden.
#include "device/cpu/cpu_stream_policy.h"
