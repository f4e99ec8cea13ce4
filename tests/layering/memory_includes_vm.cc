// Must not compile: memory -> vm is forbidden.
#include "vm/instruction.h"
