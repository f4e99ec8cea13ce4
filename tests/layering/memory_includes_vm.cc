// Must not compile: memory -> vm is forbidden.
#include "vm/engine/instruction.h"
