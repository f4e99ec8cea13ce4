// Must not compile: cpu <-> cuda is forbidden.
#include "device/cuda/cuda_status.h"
