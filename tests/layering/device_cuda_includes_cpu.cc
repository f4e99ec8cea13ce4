// Must not compile: cpu <-> cuda is forbidden.
#include "device/cpu/cpu_stream_policy.h"
