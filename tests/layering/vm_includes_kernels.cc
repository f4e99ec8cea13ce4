// Must not compile: vm -> kernels is forbidden.
#include "kernels/cpu/register.h"
